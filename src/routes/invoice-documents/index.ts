import { endpoint } from "../../http/route";
import * as handlers from "./invoice-documents.handlers";
import * as routes from "./invoice-documents.routes";

export const invoiceDocumentEndpoints = (["invoice", "credit_note"] as const).map((kind) =>
  endpoint(routes.getDocument(kind), handlers.getDocument(kind)),
);
