import { endpoint, loadingEndpoint } from "../../http/route";
import * as handlers from "./direct-debit-collections.handlers";
import * as routes from "./direct-debit-collections.routes";

export const directDebitCollectionEndpoints = [
  loadingEndpoint(routes.createDirectDebitCollection, handlers.loadCollectable, handlers.createDirectDebitCollection),
  endpoint(routes.listDirectDebitCollections, handlers.listDirectDebitCollections),
  loadingEndpoint(routes.getDirectDebitCollection, handlers.loadCollection, handlers.getDirectDebitCollection),
  endpoint(routes.getDirectDebitCollectionDocument, handlers.getDirectDebitCollectionDocument),
];
