/** Test support for validate: a baseline that passes the policy. */
import type { Baseline } from "./baseline.ts";

/** A baseline that passes the policy. */
export function goodBaseline(): Baseline {
  return {
    version: 1,
    projects: [{
      name: "runners",
      config: {
        "restricted": "true",
        "limits.instances": "4",
        "limits.cpu": "8",
        "limits.memory": "16GiB",
      },
      profiles: [{
        name: "default",
        config: { "limits.cpu": "2", "limits.memory": "4GiB", "security.secureboot": "true" },
      }],
    }],
  };
}
