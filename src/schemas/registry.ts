import * as z from "zod/mini";

/** Schemas that appear by name under the OpenAPI document's `components.schemas`. */
export const components = z.registry<{ id: string; description?: string }>();

export function named<T extends z.ZodMiniType>(id: string, schema: T, description?: string): T {
  components.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}
