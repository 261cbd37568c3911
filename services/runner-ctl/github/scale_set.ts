/**
 * Get-or-create of the scale set, and the checks a pre-existing one must pass: exactly one label,
 * the scale-set name, and runner self-update disabled (`RunnerSetting.disableUpdate`, absent
 * meaning false). Run at start and again whenever the service says the set is gone.
 *
 * @module
 */
import type { ActionsClient } from "./actions.ts";
import { ActionsError } from "./errors.ts";
import { disableUpdateOf, type RunnerScaleSet } from "./types.ts";

/** A pre-existing scale set does not fit this controller. */
export class ScaleSetPolicyError extends Error {
  readonly code: "wrong_labels" | "self_update_enabled" | "no_runner_group";
  constructor(code: ScaleSetPolicyError["code"], message: string) {
    super(message);
    this.name = "ScaleSetPolicyError";
    this.code = code;
  }
}

/** Throws when `set` does not carry exactly the label `name` or has self-update enabled. */
function checkScaleSet(set: RunnerScaleSet, name: string): void {
  const labels = (set.labels ?? []).map((l) => l.name);
  if (labels.length !== 1 || labels[0] !== name) {
    throw new ScaleSetPolicyError(
      "wrong_labels",
      "Cannot use the runner scale set: its labels are not exactly its name " +
        `(found ${labels.length} label(s))`,
    );
  }
  if (!disableUpdateOf(set)) {
    throw new ScaleSetPolicyError(
      "self_update_enabled",
      "Cannot use the runner scale set: runner self-update is not disabled",
    );
  }
}

/** Resolves the group, then gets the scale set or creates it; checks a pre-existing one. */
export async function ensureScaleSet(
  client: ActionsClient,
  o: { name: string; runnerGroup: string; signal?: AbortSignal },
): Promise<{ set: RunnerScaleSet; created: boolean }> {
  let groupId: number;
  try {
    groupId = await client.runnerGroupId(o.runnerGroup, o.signal);
  } catch (err) {
    if (err instanceof ActionsError && err.code === "not_found") {
      throw new ScaleSetPolicyError(
        "no_runner_group",
        "Cannot use the runner group: no runner group of that name exists",
      );
    }
    throw err;
  }
  const found = await client.getScaleSet(groupId, o.name, o.signal);
  if (found) {
    checkScaleSet(found, o.name);
    return { set: found, created: false };
  }
  const set = await client.createScaleSet({
    name: o.name,
    runnerGroupId: groupId,
    labels: [{ name: o.name, type: "System" }],
    RunnerSetting: { disableUpdate: true },
  }, o.signal);
  checkScaleSet(set, o.name);
  return { set, created: true };
}
