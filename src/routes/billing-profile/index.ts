import { endpoint } from "../../http/route";
import * as handlers from "./billing-profile.handlers";
import * as routes from "./billing-profile.routes";

export const billingProfileEndpoints = [
  endpoint(routes.putBillingProfile, handlers.putBillingProfile),
  endpoint(routes.getBillingProfile, handlers.getBillingProfile),
];
