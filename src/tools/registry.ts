import { claimTask } from "./claimTask.js"
import { confirmFact } from "./confirmFact.js"
import { detectConflicts } from "./detectConflicts.js"
import { findProcedure } from "./findProcedure.js"
import { finishTask } from "./finishTask.js"
import { getBriefing } from "./getBriefing.js"
import { getClusters } from "./getClusters.js"
import { getContext } from "./getContext.js"
import { getCurrentState } from "./getCurrentState.js"
import { getImpact } from "./getImpact.js"
import { getImportantFacts } from "./getImportantFacts.js"
import { listTasks } from "./listTasks.js"
import { postTask } from "./postTask.js"
import { recordRun } from "./recordRun.js"
import { resolveConflict } from "./resolveConflict.js"
import { retractFact } from "./retractFact.js"
import { saveFact } from "./saveFact.js"
import { search } from "./search.js"
import type { AnyTool } from "./Tool.js"

/** The tools, in the order a client lists them. */
export const tools: ReadonlyArray<AnyTool> = [
  saveFact,
  getContext,
  getImpact,
  getCurrentState,
  search,
  detectConflicts,
  resolveConflict,
  retractFact,
  confirmFact,
  getBriefing,
  getImportantFacts,
  getClusters,
  postTask,
  claimTask,
  finishTask,
  listTasks,
  // Procedures (issue 44)
  recordRun,
  findProcedure
]
