/**
 * The `/_mock` control plane of mock-oidc: clock, mint, scenarios, captured requests, reset.
 * @module
 */
export {
  controlCatchAll,
  controlMethodNotAllowed,
  controlPlaneElsewhere,
  controlRoutes,
  disabledControlPlane,
  isControlPath,
  unknownControlPath,
  withControlGate,
  withTestingOnlyMarker,
} from "./control_plane.ts";
export type { ControlClock, ControlDeps, ControlHandler, TokenIssuer } from "./control_deps.ts";
export { captureInProcess, isExcludedFromCapture, withCapture } from "./capture.ts";
export { type CapturedRequest, type Endpoint, ENDPOINTS, RequestLog } from "./request_log.ts";
export { type RequestMapping, type Scenario, ScenarioQueue } from "./scenario_queue.ts";
