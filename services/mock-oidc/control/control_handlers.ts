/**
 * Every handler of the `/_mock` rows of the route table (`routes.ts`), each a
 * {@linkcode ControlHandler} `(req, deps)`, in one module the rows load on the first control
 * request: a start-up and the protocol's requests do without the control plane's code.
 *
 * @module
 */
import type { ControlHandler } from "./control_deps.ts";
import * as clock from "./clock_routes.ts";
import { mintToken as mint } from "./mint.ts";
import * as requests from "./request_routes.ts";
import { resetMock as reset } from "./reset.ts";
import * as clients from "./client_routes.ts";
import * as issuerSettings from "./issuer_routes.ts";
import { Issuers } from "../protocol/issuers.ts";
import * as faultRoutes from "./fault_routes.ts";
import * as keyRoutes from "./key_routes.ts";
import * as dpopRoutes from "./dpop_routes.ts";
import { NonceChallenges } from "../protocol/dpop_challenges.ts";
import { HttpError } from "@svc/shared/problem";
import type { RotatingKeyStore } from "../keys/key_ring.ts";
import { FaultQueue } from "../protocol/fault_queue.ts";
import * as scenarios from "./scenario_routes.ts";
import { consolePage as page } from "../console/console_page_response.ts";
import { ClientRegistry } from "../protocol/client_registry.ts";

export const getClock: ControlHandler = (_req, deps) => clock.getClock(deps.clock);
export const putClock: ControlHandler = (req, deps) => clock.putClock(req, deps.clock);
export const advanceClock: ControlHandler = (req, deps) => clock.advanceClock(req, deps.clock);
export const mintToken: ControlHandler = (req, deps) => mint(req, deps);
export const enqueueScenario: ControlHandler = (req, deps) =>
  scenarios.enqueueScenario(req, deps.scenarios);
export const listScenarios: ControlHandler = (_req, deps) =>
  scenarios.listScenarios(deps.scenarios);
export const flushScenarios: ControlHandler = (_req, deps) =>
  scenarios.flushScenarios(deps.scenarios);
export const listRequests: ControlHandler = (req, deps) =>
  requests.listRequests(req, deps.requests);
export const clearRequests: ControlHandler = (_req, deps) => requests.clearRequests(deps.requests);
export const takeRequest: ControlHandler = (req, deps) => requests.takeRequest(req, deps.requests);
export const requestChanges: ControlHandler = (req, deps) =>
  requests.requestChanges(req, deps.requests);
// Without a registry of its own (tests), there is nothing registered to list or forget.
export const listClients: ControlHandler = (_req, deps) =>
  clients.listClients(deps.clients ?? new ClientRegistry());
export const clearClients: ControlHandler = (_req, deps) =>
  clients.clearClients(deps.clients ?? new ClientRegistry());
// Without settings of their own (tests), a fresh set that nothing reads.
export const putIssuer: ControlHandler = (req, deps) =>
  issuerSettings.putIssuer(req, deps.issuers ?? new Issuers());
export const listIssuers: ControlHandler = (_req, deps) =>
  issuerSettings.listIssuers(deps.issuers ?? new Issuers());
export const clearIssuers: ControlHandler = (_req, deps) =>
  issuerSettings.clearIssuers(deps.issuers ?? new Issuers());
export const injectFault: ControlHandler = (req, deps) =>
  faultRoutes.injectFault(req, deps.faults ?? new FaultQueue());
export const listFaults: ControlHandler = (_req, deps) =>
  faultRoutes.listFaults(deps.faults ?? new FaultQueue());
export const clearFaults: ControlHandler = (_req, deps) =>
  faultRoutes.clearFaults(deps.faults ?? new FaultQueue());
// Without challenges of their own (tests), a fresh set that nothing reads.
const challengesOf = (deps: { dpopChallenges?: NonceChallenges }) =>
  deps.dpopChallenges ?? new NonceChallenges();
export const addNonceChallenge: ControlHandler = (req, deps) =>
  dpopRoutes.addNonceChallenge(req, challengesOf(deps));
export const listNonceChallenges: ControlHandler = (_req, deps) =>
  dpopRoutes.listNonceChallenges(challengesOf(deps));
export const clearNonceChallenges: ControlHandler = (_req, deps) =>
  dpopRoutes.clearNonceChallenges(challengesOf(deps));
// Without keys of their own (tests), the route has nothing to change.
function keysOf(deps: { keys?: RotatingKeyStore }): RotatingKeyStore {
  if (!deps.keys) throw new HttpError(404, "no_keys", "this control plane has no signing keys");
  return deps.keys;
}
export const listKeys: ControlHandler = (req, deps) => keyRoutes.listKeys(req, keysOf(deps));
export const addKey: ControlHandler = (req, deps) => keyRoutes.addKey(req, keysOf(deps));
export const activateKey: ControlHandler = (req, deps) => keyRoutes.activateKey(req, keysOf(deps));
export const retireKey: ControlHandler = (req, deps) => keyRoutes.retireKey(req, keysOf(deps));
export const resetMock: ControlHandler = (req, deps) => reset(req, deps);
export const consolePage: ControlHandler = (req) => page(req);
