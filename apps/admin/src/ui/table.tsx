import type { ComponentChildren, JSX } from 'preact';

/** A table named by its (visually hidden) caption, scrolling sideways inside its own box on a phone. */
export function Table({ caption, columns, children }: { caption: string; columns: string[]; children: ComponentChildren }): JSX.Element {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
