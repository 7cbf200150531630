import { endpoint, loadingEndpoint } from "../../http/route";
import * as handlers from "./bank-statements.handlers";
import * as routes from "./bank-statements.routes";

export const bankStatementEndpoints = [
  endpoint(routes.createBankStatements, handlers.createBankStatements),
  endpoint(routes.listBankStatements, handlers.listBankStatements),
  loadingEndpoint(routes.getBankStatement, handlers.loadStatement, handlers.getBankStatement),
];
