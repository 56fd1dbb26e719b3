/**
 * What a graph's data means is versioned: `schema` on its RelayClock node. 1 (or none): staleness
 * derived at read time; 2: every fact stores `stale_at` (layers/factStore/staleness.ts); 3: the
 * clock's and the search terms' counters live on edges (clock.ts, termCounts.ts); 4: each forked
 * parent's MARKS edge keeps its window (layers/factStore/forkWindow.ts); 5: the task queue's TALLY
 * edge counts the board's tasks by status and holds its last place (layers/tasks/taskCounts.ts); 6:
 * a task's changing fields and the queue's head live on edges (a task's STATE self-loop, the queue's
 * TALLY: layers/tasks/taskMap.ts); 7: the fork rule weighs kinds and shared terms, and each fork pair
 * that is not two kind-less facts is a FORKS edge (layers/factStore/forkRule.ts); 8: threads and clusters kept on
 * write (each fact's `root`, THREAD and CLUSTER self-loops, MARKS' root: layers/factStore/
 * threadClusters.ts) and importance materialised (layers/factStore/rankGenerations.ts), a migration
 * that runs from 6 or 7 alike (clusterMigration.ts); 9: procedures (issue 44): facts of kind `procedure`
 * or `warning`, Step and Run nodes, each procedure's run counts kept on its node (layers/procedures;
 * the migration recounts them, runCounts.ts), so a Relay of 8 that knows none of this reads such a
 * graph and never writes it; 10: a cluster's oldest facts kept as [stamp, id] pairs on its CLUSTER
 * loop (`firsts`, read by Fact.id: layers/factStore/clusterPage.ts), the loops written again by the
 * migration from the edges. A graph that starts here gets the version with its clock node;
 * an older one is migrated the first time a process of this version uses it (schemaVersion.ts;
 * every statement of that process waits for it); a newer one (a later Relay wrote it) is read but
 * never written by this process.
 */
export const schemaVersion = 10
