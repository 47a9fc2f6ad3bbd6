import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload: () => void;
}

/** Loads once per change of `key`, and again on `reload()`; an older answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, key: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...key, round]); // `key` names what `load` depends on
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, reload };
}
