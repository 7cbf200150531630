import { endpoint, loadingEndpoint } from "../../http/route";
import * as handlers from "./bank-transactions.handlers";
import * as routes from "./bank-transactions.routes";

export const bankTransactionEndpoints = [
  endpoint(routes.listBankTransactions, handlers.listBankTransactions),
  loadingEndpoint(routes.getBankTransaction, handlers.loadTransaction, handlers.getBankTransaction),
  loadingEndpoint(routes.createAllocation, handlers.loadAllocation, handlers.createAllocation),
];
