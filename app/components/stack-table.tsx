/**
 * The header row of a `stack-table`: a table that becomes labelled rows on phones (each
 * cell's `data-label` repeats its column name there, see globals.css). Explicit roles keep
 * the table semantics when the stacked CSS changes the display of its parts.
 */
export function StackTableHead({ columns }: { columns: string[] }) {
  return (
    <thead role="rowgroup">
      <tr role="row">
        {columns.map((c) => (
          <th key={c} scope="col" role="columnheader">
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}
