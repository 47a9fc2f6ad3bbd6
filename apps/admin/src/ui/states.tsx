import type { ComponentChildren, JSX } from 'preact';
import type { Loaded } from './async';

/** Loading, failure and empty states for a loaded value; renders `children` once there is data. */
export function Show<T>({
  loaded,
  empty,
  isEmpty,
  children,
}: {
  loaded: Loaded<T>;
  empty?: string;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ComponentChildren;
}): JSX.Element {
  if (loaded.error) {
    return (
      <div class="alert" role="alert">
        {loaded.error.message}{' '}
        <button type="button" onClick={loaded.reload}>
          Try again
        </button>
      </div>
    );
  }
  if (loaded.data === undefined) {
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  }
  if (isEmpty?.(loaded.data)) return <p class="empty">{empty ?? 'Nothing here yet.'}</p>;
  return <>{children(loaded.data)}</>;
}

export function NotAllowed(): JSX.Element {
  return (
    <section>
      <h1>Not allowed</h1>
      <p>Your role in this organization does not allow this page.</p>
    </section>
  );
}

/** Shown once: a secret the API will never show again (API keys, webhook secrets). */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }): JSX.Element {
  return (
    <div class="shown-once" role="status">
      <p>
        <strong>{label}</strong> — copy it now; it will not be shown again.
      </p>
      <output aria-label={label} class="secret">
        {value}
      </output>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
