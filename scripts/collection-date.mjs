// `npm run collection-date -- [YYYY-MM-DD]`: the first day a direct debit collection may be made for
// invoices due on that day (default: today), as POST /direct_debit_collections checks it (docs/api.md
// part 16): a TARGET2 business day, at least DIRECT_DEBIT_LEAD_DAYS (wrangler.toml) such days ahead.
import { importSource } from "./import-source.mjs";
import { apiVars } from "./derived-config.mjs";

const { earliestCollectionDate, isTarget2Day } = await importSource('export * from "./src/domain/target2";');
const { addDays, dayIn, isDay } = await importSource('export * from "./src/domain/time";');
const due = process.argv[2];
if (due !== undefined && !isDay(due)) {
  console.error("usage: npm run collection-date -- [YYYY-MM-DD]");
  process.exit(2);
}
const vars = apiVars();
const today = dayIn(new Date(), vars.BUSINESS_TIME_ZONE ?? "Europe/Berlin");
let day = earliestCollectionDate(today, Number(vars.DIRECT_DEBIT_LEAD_DAYS ?? "1"));
if (due && due > day) for (day = due; !isTarget2Day(day); day = addDays(day, 1));
console.log(day);
