/**
 * Every handler of the `/_mock` rows, in one module that control_plane.ts loads on the first
 * control request: a start-up and the protocol's requests do without the control plane's code.
 *
 * @module
 */
export { advanceClock, getClock, putClock } from "./clock_routes.ts";
export { mintToken } from "./mint.ts";
export { clearRequests, listRequests, requestChanges, takeRequest } from "./request_routes.ts";
export { resetMock } from "./reset.ts";
export { clearClients, listClients } from "./client_routes.ts";
export { enqueueScenario, flushScenarios, listScenarios } from "./scenario_routes.ts";
export { consolePage } from "../console/console_page_response.ts";
