import { Effect } from "effect"

/**
 * A page read from the best `window` rows of one total order (a top-k sort), tried first with a
 * small window, four rows for each row the page takes, and again with `wide` only when that could
 * differ. A top-k sort is cheap, a full one over thousands of rows is not, and the first rows
 * mostly pass the filters applied after the cut (status). A smaller window is a prefix of the
 * larger, so a page full inside it is exactly what `wide` gives, and a window the sort did not fill
 * held every row. Only a short page of a full window pays the second read. Each row carries `n`,
 * how many rows the window held; with no row (nothing passed) that is unknown, so it reads again.
 */
export const narrowFirst = <A extends { readonly n: number }, E, R>(
  take: number,
  wide: number,
  read: (window: number) => Effect.Effect<ReadonlyArray<A>, E, R>
): Effect.Effect<ReadonlyArray<A>, E, R> => {
  const first = Math.min(wide, take * 4)
  return read(first).pipe(
    Effect.flatMap((rows) =>
      rows.length >= take || first >= wide || (rows[0] !== undefined && rows[0].n < first)
        ? Effect.succeed(rows)
        : read(wide)
    )
  )
}
