import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure, type Schemas } from '../api/client';

/** An API error split by field: each `details` entry goes beside the control it names, the rest above the form. */
export interface FormProblem {
  message: string;
  fields: Record<string, string>;
}

/** Why a time cannot be booked (409 SLOT_UNAVAILABLE names one of these), in words. */
const SLOT_REASONS: Record<Schemas['CheckResponse']['reason'] & string, string> = {
  in_the_past: 'that time is in the past',
  minimum_notice: 'that is sooner than the event type’s minimum notice',
  outside_booking_window: 'that is further ahead than the event type’s booking window',
  outside_availability: 'that is outside the host’s available hours',
  out_of_office: 'the host is out of office then',
  already_booked: 'that time is already booked',
  held: 'someone is holding that time while they book it',
  calendar_conflict: 'the host is busy then in their own calendar',
  daily_limit_reached: 'the host’s bookings for that day are full',
  host_limit_reached: 'the host has reached their booking limit for that day or week',
  not_routed: 'the routing form sent the booking to other hosts',
};

export function problemOf(error: unknown): FormProblem {
  if (error instanceof ApiFailure) {
    const fields: Record<string, string> = {};
    for (const detail of error.body?.details ?? []) {
      const reason = error.code === 'SLOT_UNAVAILABLE' ? SLOT_REASONS[detail.message as keyof typeof SLOT_REASONS] : undefined;
      fields[detail.field] ??= reason ? `Not bookable: ${reason} (${detail.message}).` : detail.message;
    }
    return { message: error.message, fields };
  }
  return { message: error instanceof Error ? error.message : String(error), fields: {} };
}

/** Runs a form's action, keeping its pending state and the problem of its last failure. */
export function useSubmit(action: () => Promise<void>): {
  submit: (event?: Event) => Promise<void>;
  pending: boolean;
  problem: FormProblem | null;
  setProblem: (problem: FormProblem | null) => void;
} {
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const submit = async (event?: Event): Promise<void> => {
    event?.preventDefault();
    setPending(true);
    setProblem(null);
    try {
      await action();
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setPending(false);
    }
  };
  return { submit, pending, problem, setProblem };
}

let nextId = 0;
function useId(prefix: string): string {
  const [id] = useState(() => `${prefix}-${++nextId}`);
  return id;
}

interface FieldProps {
  label: string;
  /** The API's name for the value (`details[].field`), so its error shows here. */
  name: string;
  problem?: FormProblem | null;
  hint?: string;
  children: (props: { id: string; name: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => ComponentChildren;
}

export function Field({ label, name, problem, hint, children }: FieldProps): JSX.Element {
  const id = useId(name.replace(/\W+/g, '-'));
  const error = fieldError(problem, name);
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({ id, name, 'aria-invalid': error ? true : undefined, 'aria-describedby': described })}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The message for a field, matching `name` exactly or any `name[…]` / `name.…` below it. */
export function fieldError(problem: FormProblem | null | undefined, name: string): string | undefined {
  if (!problem) return undefined;
  if (problem.fields[name]) return problem.fields[name];
  const nested = Object.keys(problem.fields).find((field) => field.startsWith(`${name}.`) || field.startsWith(`${name}[`));
  return nested ? `${nested}: ${problem.fields[nested]}` : undefined;
}

/**
 * The form-level message: shown once, above the form, announced to screen readers. `details` lists each
 * field's message too, for forms whose fields are rows of a list (`schedules[2].slots[0].endTime`).
 */
export function FormAlert({ problem, details }: { problem: FormProblem | null; details?: boolean }): JSX.Element | null {
  if (!problem) return null;
  const fields = details ? Object.entries(problem.fields) : [];
  return (
    <div class="alert" role="alert">
      {problem.message}
      {fields.length > 0 && (
        <ul>
          {fields.map(([field, message]) => (
            <li key={field}>
              {field}: {message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function inputValue(event: Event): string {
  return (event.currentTarget as HTMLInputElement).value;
}

export function checked(event: Event): boolean {
  return (event.currentTarget as HTMLInputElement).checked;
}

/** A set of checkboxes for a list value (scopes, events), with the error the API gives for the list. */
export function CheckList<T extends string>(props: {
  legend: string;
  name: string;
  options: readonly T[];
  chosen: readonly T[];
  onChange: (chosen: T[]) => void;
  problem?: FormProblem | null;
  labelOf?: (option: T) => string;
}): JSX.Element {
  const { legend, name, options, chosen, onChange, problem, labelOf } = props;
  const error = fieldError(problem, name);
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div class="checks">
        {options.map((option) => (
          <label key={option} class="check">
            <input
              type="checkbox"
              checked={chosen.includes(option)}
              onChange={(e) => onChange(checked(e) ? [...chosen, option] : chosen.filter((x) => x !== option))}
            />
            {labelOf ? labelOf(option) : option}
          </label>
        ))}
      </div>
      {error && <p class="field-error">{error}</p>}
    </fieldset>
  );
}
