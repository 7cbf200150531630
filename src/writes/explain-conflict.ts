import { isWriteConflict } from "../errors";

/**
 * Runs a guarded write. When a concurrent change made its guard fail, `explain` reads again and
 * applies the same rules as before the write, so that the client learns why (an order no longer a
 * draft, an invoice paid meanwhile); when the rules still pass, the write conflict stands (409).
 */
export async function explainConflict<T>(write: () => Promise<T>, explain: () => Promise<void>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isWriteConflict(error)) await explain();
    throw error;
  }
}
