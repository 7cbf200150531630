import { endpoint } from "../../http/route";
import * as handlers from "./events.handlers";
import * as routes from "./events.routes";

export const eventEndpoints = [endpoint(routes.listEvents, handlers.listEvents)];
