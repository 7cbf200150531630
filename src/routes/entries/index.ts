import { endpoint, loadingEndpoint } from "../../http/route";
import * as handlers from "./entries.handlers";
import * as routes from "./entries.routes";

export const entryEndpoints = [
  loadingEndpoint(routes.createEntry, handlers.loadOrder, handlers.createEntry),
  endpoint(routes.listEntries, handlers.listEntries),
  loadingEndpoint(routes.deleteEntry, handlers.loadOrderAndEntry, handlers.deleteEntry),
];
