import type { JSX } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
// The booker's list of zones with their current offsets: one implementation for both apps.
import { offsetOf, zones } from '../../../booker/src/time';

const MAX_SHOWN = 40;

/** Whether the browser knows `zone` as an IANA time zone. */
export function isZone(zone: string): boolean {
  if (!zone) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Zones whose name (a city) or offset holds every word typed: "york", "new york", "gmt-5", "+9". */
export function matchingZones(query: string): { zone: string; label: string }[] {
  const words = query.toLowerCase().replace(/_/g, ' ').split(/\s+/).filter(Boolean);
  if (words.length === 0) return zones();
  return zones().filter(({ label }) => {
    const text = label.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

interface ZonePickerProps {
  id: string;
  name: string;
  value: string;
  onChange: (zone: string) => void;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

/**
 * A searchable IANA time zone (ARIA combobox): typing filters the zones by city or offset, arrows move, Enter or a
 * click chooses; a complete zone name typed in is taken as it is. Its current offset is shown beside it.
 */
export function ZonePicker({ id, name, value, onChange, ...aria }: ZonePickerProps): JSX.Element {
  const listId = useId();
  const [text, setText] = useState(value);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  useEffect(() => setText(value), [value]);
  const shown = open ? matchingZones(text).slice(0, MAX_SHOWN) : [];
  const choose = (zone: string): void => {
    setText(zone);
    setOpen(false);
    onChange(zone);
  };
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => Math.min(Math.max(current + step, 0), Math.max(shown.length - 1, 0)));
    } else if (event.key === 'Enter' && open && shown[active]) {
      event.preventDefault();
      choose(shown[active].zone);
    } else if (event.key === 'Escape') {
      setOpen(false);
    }
  };
  return (
    <div class="zone-picker">
      <input
        id={id}
        name={name}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown.length > 0}
        aria-controls={listId}
        aria-activedescendant={shown[active] ? `${listId}-${active}` : undefined}
        autocomplete="off"
        spellcheck={false}
        value={text}
        {...aria}
        onInput={(event) => {
          const typed = (event.target as HTMLInputElement).value;
          setText(typed);
          setOpen(true);
          setActive(0);
          if (isZone(typed.trim())) onChange(typed.trim());
        }}
        onFocus={() => setOpen(false)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      <span class="zone-offset">{isZone(value) ? offsetOf(value) : ''}</span>
      <ul id={listId} role="listbox" aria-label="Time zones" class="zone-options" hidden={shown.length === 0}>
        {shown.map((zone, index) => (
          <li
            key={zone.zone}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === active}
            class={index === active ? 'active' : undefined}
            // Chosen on mousedown, before the input's blur closes the list.
            onMouseDown={(event) => {
              event.preventDefault();
              choose(zone.zone);
            }}
          >
            {zone.label}
          </li>
        ))}
      </ul>
    </div>
  );
}
