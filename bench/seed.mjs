// bench/run.mjs's card orders: written by the one seeding script, scripts/seed-invoices.mjs.
export { writeCardOrderSeed as writeSeed } from "../scripts/seed-invoices.mjs";
