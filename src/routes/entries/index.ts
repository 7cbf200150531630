import { endpoint } from "../../http/route";
import * as handlers from "./entries.handlers";
import * as routes from "./entries.routes";

export const entryEndpoints = [
  endpoint(routes.createEntry, handlers.createEntry),
  endpoint(routes.listEntries, handlers.listEntries),
  endpoint(routes.deleteEntry, handlers.deleteEntry),
];
