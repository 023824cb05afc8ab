/** Doctor (SPEC §2.5) and `stowage policy`: the public surface of this folder (re-exports only). */
export { diagnose, type ProbeNeed } from "./diagnose.js";
export {
  buildIamPolicy,
  type ExplainedPolicy,
  type IamPolicy,
  type PolicyRole,
  type PolicyStatement,
} from "./iam-policy.js";
export { loadDoctorPlan, type LoadedPlan, type PlanOptions } from "./plan.js";
export type { ProbeOptions } from "./probe-context.js";
export { probeTarget } from "./probes.js";
export { formatReport } from "./report.js";
export { runDoctor, type RunDoctorOptions } from "./run-doctor.js";
export type {
  CheckOutcome,
  CheckResult,
  DoctorCategory,
  DoctorPlan,
  DoctorReport,
  DoctorTarget,
  ExportDoctorHook,
  ExtraCheck,
} from "./types.js";
