import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { layOut, minutesOn } from './grid-layout';
import { dateIn, wallMinutes } from './time';

/** One column of the grid: a date in the grid's zone (a day of the week, or one member's day). */
export interface GridColumn {
  key: string;
  date: string;
  heading: string;
}

/** Something placed in a column between two instants: a booking, a free slot. */
export interface GridItem {
  key: string;
  column: string;
  start: string;
  end: string;
  /** The CSS class of its look: confirmed, pending, cancelled, slot. */
  kind: string;
  title: string;
  detail?: string;
  /** What a link's screen reader name says: when and what (items without `href` are read as their text). */
  label: string;
  href?: string;
}

/** A shaded stretch behind the items: working hours, or busy in an external calendar (hatched). */
export interface GridBand {
  column: string;
  start: string;
  end: string;
  kind: 'working' | 'busy';
}

const HOUR_PX = 44;
/** Whether the viewport is narrow (a phone): the week becomes a day. */
export function useNarrow(query = '(max-width: 640px)'): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const media = window.matchMedia(query);
    const update = (): void => setNarrow(media.matches);
    media.addEventListener('change', update);
    return () => media.removeEventListener('change', update);
  }, [query]);
  return narrow;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * A time grid: one column per date (or per member on one date), hours down the side in `timeZone`, items placed by
 * their wall-clock times, bands shaded behind them, and a line at `now`. The rows shown cover 07:00–20:00 and
 * whatever an item needs beyond.
 */
export function WeekGrid(props: {
  caption: string;
  columns: GridColumn[];
  timeZone: string;
  items: GridItem[];
  bands?: GridBand[];
  now?: Date;
}): JSX.Element {
  const { columns, timeZone } = props;
  const byColumn = new Map(columns.map((column) => [column.key, column]));
  const itemSpans = props.items.flatMap((item) => {
    const column = byColumn.get(item.column);
    const minutes = column && minutesOn(column.date, timeZone, item.start, item.end);
    return minutes ? [{ value: item, from: minutes[0], to: minutes[1] }] : [];
  });
  const firstHour = Math.min(7, ...itemSpans.map((span) => Math.floor(span.from / 60)));
  const lastHour = Math.max(20, ...itemSpans.map((span) => Math.ceil(span.to / 60)));
  const hours = Array.from({ length: lastHour - firstHour }, (_, i) => firstHour + i);
  const top = (minutes: number): number => ((minutes - firstHour * 60) / 60) * HOUR_PX;
  const height = (from: number, to: number): number => Math.max(((to - from) / 60) * HOUR_PX, 14);
  const now = props.now;
  const nowDate = now ? dateIn(now, timeZone) : null;
  const template = { gridTemplateColumns: `3.25rem repeat(${columns.length}, minmax(0, 1fr))` };
  return (
    <div class="week-grid" role="group" aria-label={props.caption}>
      <div class="wg-head" style={template} aria-hidden="true">
        <span />
        {columns.map((column) => (
          <span key={column.key} class={column.date === nowDate ? 'today' : undefined}>
            {column.heading}
          </span>
        ))}
      </div>
      <div class="wg-body" style={template}>
        <div class="wg-hours" aria-hidden="true">
          {hours.map((hour) => (
            <span key={hour} style={{ height: `${HOUR_PX}px` }}>
              {pad(hour)}:00
            </span>
          ))}
        </div>
        {columns.map((column) => {
          const bands = (props.bands ?? []).flatMap((band) => {
            if (band.column !== column.key) return [];
            const minutes = minutesOn(column.date, timeZone, band.start, band.end);
            return minutes ? [{ band, minutes }] : [];
          });
          const placed = layOut(itemSpans.filter((span) => span.value.column === column.key));
          const nowMinutes = now && column.date === nowDate ? wallMinutes(now, timeZone) : null;
          return (
            <div
              key={column.key}
              class="wg-col"
              style={{ height: `${hours.length * HOUR_PX}px`, backgroundSize: `100% ${HOUR_PX}px` }}
              data-date={column.date}
              role="list"
              aria-label={column.heading}
            >
              {bands.map(({ band, minutes: [from, to] }) => (
                <div
                  key={`${band.kind}-${band.start}`}
                  class={`wg-band ${band.kind}`}
                  style={{ top: `${top(from)}px`, height: `${height(from, to)}px` }}
                  aria-hidden="true"
                />
              ))}
              {nowMinutes !== null && <div class="wg-now" style={{ top: `${top(nowMinutes)}px` }} aria-hidden="true" />}
              {placed.map(({ value: item, from, to, lane, lanes }) => {
                const style = {
                  top: `${top(from)}px`,
                  height: `${height(from, to)}px`,
                  left: `calc(${(lane / lanes) * 100}% + 1px)`,
                  width: `calc(${100 / lanes}% - 2px)`,
                };
                const body = (
                  <>
                    <span class="wg-time">{`${pad(Math.floor(from / 60))}:${pad(from % 60)}`}</span> <strong>{item.title}</strong>
                    {item.detail && <span class="wg-detail">{item.detail}</span>}
                  </>
                );
                return (
                  <div key={item.key} role="listitem" class={`wg-item ${item.kind}`} style={style}>
                    {item.href ? (
                      <a href={item.href} aria-label={item.label}>
                        {body}
                      </a>
                    ) : (
                      body
                    )}
                  </div>
                );
              })}
            </div>
          );
        })}
      </div>
    </div>
  );
}
