// Resource ids are random UUIDs: 122 random bits, unguessable and safe in a URL path.
export const newId = (): string => crypto.randomUUID();

const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Anything else cannot name a resource, so it is a 404 without a database read. */
export const isId = (value: string): boolean => ID_PATTERN.test(value);
