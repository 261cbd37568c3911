/**
 * Objects of the scale-set protocol (as `actions/scaleset` `types.go` defines them).
 *
 * @module
 */

/** A scale-set label. */
export interface Label {
  type: string;
  name: string;
}

/** Counters the service attaches to sessions and messages; scaling reads `totalAssignedJobs`. */
export interface Statistics {
  totalAvailableJobs: number;
  totalAcquiredJobs: number;
  totalAssignedJobs: number;
  totalRunningJobs: number;
  totalRegisteredRunners: number;
  totalBusyRunners: number;
  totalIdleRunners: number;
}

/** A runner scale set. `RunnerSetting` really is capitalised on the wire. */
export interface RunnerScaleSet {
  id: number;
  name: string;
  runnerGroupId: number;
  runnerGroupName?: string;
  labels: Label[];
  RunnerSetting?: { disableUpdate?: boolean; ephemeral?: boolean };
  runnerSetting?: { disableUpdate?: boolean };
  statistics?: Statistics;
}

/** A message session. */
export interface MessageSession {
  sessionId: string;
  ownerName: string;
  runnerScaleSet?: RunnerScaleSet;
  messageQueueUrl: string;
  messageQueueAccessToken: string;
  statistics?: Statistics;
}

/** The envelope GetMessage returns; `body` is a JSON array encoded as a string. */
export interface RunnerScaleSetMessage {
  messageId: number;
  messageType: string;
  body: string;
  statistics?: Statistics;
}

/** Fields every job message carries. */
export interface JobMessageBase {
  messageType: string;
  runnerRequestId: number;
  repositoryName?: string;
  ownerName?: string;
  jobId?: string;
  jobWorkflowRef?: string;
  jobDisplayName?: string;
  workflowRunId?: number;
  eventName?: string;
  requestLabels?: string[];
  queueTime?: string;
  scaleSetAssignTime?: string;
  runnerAssignTime?: string;
  finishTime?: string;
}

/** A job message of any type. */
export interface JobMessage extends JobMessageBase {
  acquireJobUrl?: string;
  runnerId?: number;
  runnerName?: string;
  result?: string;
}

/** What generatejitconfig returns; `encodedJITConfig` is a secret. */
export interface JitConfig {
  runner: { id: number; name: string; runnerScaleSetId?: number };
  encodedJITConfig: string;
}

/** A registered runner (agent). */
export interface RunnerReference {
  id: number;
  name: string;
  runnerScaleSetId?: number;
}

/** The effective `disableUpdate` of a scale set (absent means false, per `omitempty`). */
export function disableUpdateOf(set: RunnerScaleSet): boolean {
  return (set.RunnerSetting ?? set.runnerSetting)?.disableUpdate === true;
}
