import type { JSX } from 'preact';
import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { conditionDtoOpValues } from '@app/api-types';
import { useSession } from '../context';
import { useLoad, type Loaded } from '../ui/async';
import { checked, Field, FormAlert, inputValue, useSubmit, type FormProblem } from '../ui/form';
import { Table } from '../ui/table';
import { Show } from '../ui/states';
import { formatDateTime } from '../ui/time';
import { cleanQuestion, QuestionsFields } from './event-types';
import { useMembers } from './members';

type RoutingForm = Schemas['RoutingFormView'];
type Question = Schemas['QuestionDto'];
type QuestionType = Question['type'];
type Op = Schemas['ConditionDto']['op'];
type Target = Schemas['RouteTargetView'];
type EventType = Schemas['EventTypeView'];
type Member = Schemas['MemberView'];

/**
 * Which ops fit which field type. The API checks this at save (apps/api/src/modules/routing-forms/routing-rules.ts,
 * OPS_BY_TYPE; the table in docs/api-rules.md § Routing forms); the console cannot import the API's code, so the
 * table is repeated here once, over the op list the OpenAPI document gives.
 */
const OPS_BY_TYPE: Readonly<Record<QuestionType, readonly Op[]>> = {
  text: ['equals', 'not_equals', 'in', 'contains'],
  textarea: ['equals', 'not_equals', 'in', 'contains'],
  email: ['equals', 'not_equals', 'in', 'contains'],
  phone: ['equals', 'not_equals', 'in', 'contains'],
  number: ['equals', 'not_equals', 'in', 'gte', 'lte'],
  select: ['equals', 'not_equals', 'in'],
  multiselect: ['in', 'contains'],
  checkbox: ['equals', 'not_equals'],
  date: ['equals', 'not_equals', 'in', 'gte', 'lte'],
};
const OP_NAMES: Record<Op, string> = {
  equals: 'is',
  not_equals: 'is not',
  in: 'is one of',
  contains: 'contains',
  gte: 'is at least',
  lte: 'is at most',
};
const OPS = conditionDtoOpValues;

type Mode = 'all' | 'any' | 'always';
const MODE_NAMES: Record<Mode, string> = { all: 'All conditions hold', any: 'Any condition holds', always: 'Always' };

/** A condition as edited: the value as typed (`in`: comma-separated), turned into the field's type at save. */
interface ConditionDraft {
  field: string;
  op: Op;
  value: string;
}
type TargetKind = 'eventType' | 'message' | 'url';
interface TargetDraft {
  kind: TargetKind;
  eventTypeId: string;
  /** null: every host of the event type. */
  hostUserIds: string[] | null;
  message: string;
  url: string;
}
interface RuleDraft {
  mode: Mode;
  conditions: ConditionDraft[];
  to: TargetDraft;
}
interface Draft {
  name: string;
  fields: Question[];
  routes: RuleDraft[];
  fallback: TargetDraft;
}

const EMPTY_TARGET: TargetDraft = { kind: 'eventType', eventTypeId: '', hostUserIds: null, message: '', url: '' };

function targetDraftOf(to: Target): TargetDraft {
  if (to.message !== undefined) return { ...EMPTY_TARGET, kind: 'message', message: to.message };
  if (to.url !== undefined) return { ...EMPTY_TARGET, kind: 'url', url: to.url };
  return { ...EMPTY_TARGET, eventTypeId: to.eventTypeId ?? '', hostUserIds: to.hostUserIds ?? null };
}

function valueText(value: Schemas['ConditionView']['value']): string {
  return Array.isArray(value) ? value.join(', ') : String(value);
}

function draftOf(existing?: RoutingForm): Draft {
  if (!existing) return { name: '', fields: [], routes: [], fallback: { ...EMPTY_TARGET, kind: 'message' } };
  return {
    name: existing.name,
    fields: existing.fields,
    routes: existing.routes.map((route) => {
      const mode: Mode = route.when.all ? 'all' : route.when.any ? 'any' : 'always';
      const conditions = (route.when.all ?? route.when.any ?? []).map((c) => ({ field: c.field, op: c.op, value: valueText(c.value) }));
      return { mode, conditions, to: targetDraftOf(route.to) };
    }),
    fallback: targetDraftOf(existing.fallback),
  };
}

type Value = string | number | boolean;

/** One typed value of a field: numbers as numbers, a checkbox's true or false; the API says what is wrong with it. */
function typed(type: QuestionType | undefined, text: string): Value {
  const trimmed = text.trim();
  if (type === 'number' && trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  if (type === 'checkbox' && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  return trimmed;
}

function targetBody(to: TargetDraft): Schemas['RouteTargetDto'] {
  if (to.kind === 'message') return { message: to.message };
  if (to.kind === 'url') return { url: to.url };
  return { eventTypeId: to.eventTypeId, ...(to.hostUserIds ? { hostUserIds: to.hostUserIds } : {}) };
}

function bodyOf(draft: Draft): Schemas['CreateRoutingFormDto'] {
  const fields = draft.fields.map(cleanQuestion);
  const typeOf = (id: string): QuestionType | undefined => fields.find((field) => field.id === id)?.type;
  return {
    name: draft.name,
    fields,
    routes: draft.routes.map((rule) => {
      const conditions = rule.conditions.map((c) => ({
        field: c.field,
        op: c.op,
        value:
          c.op === 'in'
            ? c.value
                .split(',')
                .filter((item) => item.trim() !== '')
                .map((item) => typed(typeOf(c.field), item))
            : typed(typeOf(c.field), c.value),
      }));
      const when = rule.mode === 'always' ? {} : rule.mode === 'all' ? { all: conditions } : { any: conditions };
      return { when, to: targetBody(rule.to) };
    }),
    fallback: targetBody(draft.fallback),
  };
}

/** What a route does, in words: "Intro call (ann@example.com)", "Message: …", "Link: …". */
function targetText(to: Target, eventTypes: EventType[], members: Member[]): string {
  if (to.message !== undefined) return `Message: ${to.message}`;
  if (to.url !== undefined) return `Link: ${to.url}`;
  const title = eventTypes.find((eventType) => eventType.id === to.eventTypeId)?.title ?? to.eventTypeId ?? '';
  if (!to.hostUserIds) return `${title} (every host)`;
  const hosts = to.hostUserIds.map((id) => members.find((member) => member.userId === id)?.email ?? id);
  return `${title} (${hosts.join(', ')})`;
}

function ruleText(matchedRoute: number | null): string {
  return matchedRoute === null ? 'Fallback' : `Rule ${matchedRoute + 1}`;
}

/** Forms per page of the list (the API allows 100; a page the size of a screen or two). */
const FORMS_PER_PAGE = 25;

function useEventTypes(): Loaded<EventType[]> {
  return useLoad(async () => (await unwrap(api.GET('/v1/event-types', { params: { query: { limit: 100 } } }))).eventTypes, []);
}

export function RoutingFormsPage(): JSX.Element {
  const [page, setPage] = useState(1);
  // The page travels with its rows, so the label never names a page whose rows have not arrived.
  const list = useLoad(
    async () => ({ page, ...(await unwrap(api.GET('/v1/routing-forms', { params: { query: { page, limit: FORMS_PER_PAGE } } }))) }),
    [page],
  );
  const { timeZone } = useSession();
  const [creating, setCreating] = useState(false);
  const remove = async (form: RoutingForm): Promise<void> => {
    if (!window.confirm(`Delete “${form.name}” and its responses?`)) return;
    await unwrap(api.DELETE('/v1/routing-forms/{id}', { params: { path: { id: form.id } } }));
    list.reload();
  };
  return (
    <section>
      <h1>Routing forms</h1>
      {!creating && (
        <button type="button" onClick={() => setCreating(true)}>
          New routing form
        </button>
      )}
      {creating && (
        <RoutingFormForm
          onSaved={() => {
            setCreating(false);
            list.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <Show loaded={list} isEmpty={(data) => data.routingForms.length === 0 && page === 1} empty="No routing forms yet.">
        {(data) => (
          <>
            <Table caption="Routing forms" columns={['Name', 'Fields', 'Rules', 'Updated', 'Actions']}>
              {data.routingForms.map((form) => (
                <tr key={form.id}>
                  <td>
                    <a href={`/admin/routing-forms/${form.id}`}>{form.name}</a>
                  </td>
                  <td>{form.fields.map((field) => field.label).join(', ')}</td>
                  <td>{form.routes.length}</td>
                  <td>{formatDateTime(form.updatedAt, timeZone)}</td>
                  <td>
                    <button type="button" class="danger" onClick={() => void remove(form)} aria-label={`Delete ${form.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
            <div class="actions">
              <button type="button" class="secondary" disabled={data.page === 1} onClick={() => setPage(data.page - 1)}>
                Previous page
              </button>
              <span>
                Page {data.page} · {data.totalCount} forms
              </span>
              <button type="button" class="secondary" disabled={!data.hasMore} onClick={() => setPage(data.page + 1)}>
                Next page
              </button>
            </div>
          </>
        )}
      </Show>
    </section>
  );
}

export function RoutingFormEditPage(): JSX.Element {
  const { params } = useRoute();
  const { route } = useLocation();
  const loaded = useLoad(() => unwrap(api.GET('/v1/routing-forms/{id}', { params: { path: { id: params.id } } })), [params.id]);
  return (
    <section>
      <h1>Edit routing form</h1>
      <Show loaded={loaded}>
        {(data) => (
          <>
            <RoutingFormForm existing={data.routingForm} onSaved={loaded.reload} onCancel={() => route('/admin/routing-forms')} />
            <TryPanel form={data.routingForm} />
            <ResponsesList form={data.routingForm} />
          </>
        )}
      </Show>
    </section>
  );
}

function RoutingFormForm({
  existing,
  onSaved,
  onCancel,
}: {
  existing?: RoutingForm;
  onSaved: () => void;
  onCancel: () => void;
}): JSX.Element {
  const [draft, setDraft] = useState<Draft>(() => draftOf(existing));
  const [saved, setSaved] = useState(false);
  const eventTypes = useEventTypes();
  const set = (patch: Partial<Draft>): void => {
    setSaved(false);
    setDraft((current) => ({ ...current, ...patch }));
  };
  const { submit, pending, problem } = useSubmit(async () => {
    const body = bodyOf(draft);
    if (existing) await unwrap(api.PATCH('/v1/routing-forms/{id}', { params: { path: { id: existing.id } }, body }));
    else await unwrap(api.POST('/v1/routing-forms', { body }));
    setSaved(true);
    onSaved();
  });
  const changeRule = (index: number, rule: RuleDraft): void => set({ routes: draft.routes.map((r, i) => (i === index ? rule : r)) });
  const fields = draft.fields.filter((field) => field.id !== '');
  return (
    <form onSubmit={submit} noValidate class="panel" aria-label={existing ? 'Edit routing form' : 'New routing form'}>
      <FormAlert problem={problem} />
      <Field label="Name" name="name" problem={problem}>
        {(props) => <input {...props} value={draft.name} onInput={(e) => set({ name: inputValue(e) })} />}
      </Field>
      <fieldset>
        <legend>Fields</legend>
        <QuestionsFields
          questions={draft.fields}
          saved={new Set(existing?.fields.map((field) => field.id))}
          problem={problem}
          onChange={(list) => set({ fields: list })}
          list="fields"
          noun="field"
          hint="Asked of the visitor, in this order; 1 to 20. Rules read the answers by the fields’ ids."
        />
      </fieldset>
      <fieldset>
        <legend>Rules</legend>
        <p class="hint">Tried in order: the first that holds chooses the route; none holds: the fallback.</p>
        {draft.routes.map((rule, index) => (
          <RuleFields
            key={index}
            index={index}
            rule={rule}
            fields={fields}
            eventTypes={eventTypes.data ?? []}
            problem={problem}
            onChange={(next) => changeRule(index, next)}
            onRemove={() => set({ routes: draft.routes.filter((_, i) => i !== index) })}
          />
        ))}
        {problem?.fields.routes && <p class="field-error">{problem.fields.routes}</p>}
        <button
          type="button"
          class="secondary"
          onClick={() => set({ routes: [...draft.routes, { mode: 'all', conditions: [newCondition(fields)], to: EMPTY_TARGET }] })}
        >
          Add a rule
        </button>
      </fieldset>
      <TargetFields
        legend="Fallback"
        name="fallback"
        target={draft.fallback}
        eventTypes={eventTypes.data ?? []}
        problem={problem}
        onChange={(fallback) => set({ fallback })}
      />
      <div class="actions">
        <button type="submit" disabled={pending}>
          {existing ? 'Save routing form' : 'Create routing form'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          {existing ? 'Back to routing forms' : 'Cancel'}
        </button>
      </div>
      {saved && existing && <p role="status">Saved.</p>}
    </form>
  );
}

function newCondition(fields: Question[]): ConditionDraft {
  const field = fields[0];
  return { field: field?.id ?? '', op: field ? OPS_BY_TYPE[field.type][0] : 'equals', value: '' };
}

function RuleFields(props: {
  index: number;
  rule: RuleDraft;
  fields: Question[];
  eventTypes: EventType[];
  problem: FormProblem | null;
  onChange: (rule: RuleDraft) => void;
  onRemove: () => void;
}): JSX.Element {
  const { index, rule, fields, eventTypes, problem, onChange, onRemove } = props;
  const n = index + 1;
  const base = `routes[${index}]`;
  const changeCondition = (j: number, patch: Partial<ConditionDraft>): void =>
    onChange({ ...rule, conditions: rule.conditions.map((c, i) => (i === j ? { ...c, ...patch } : c)) });
  return (
    <fieldset>
      <legend>Rule {n}</legend>
      <Field label={`Rule ${n} holds when`} name={`${base}.when`} problem={problem}>
        {(control) => (
          <select {...control} value={rule.mode} onChange={(e) => onChange({ ...rule, mode: inputValue(e) as Mode })}>
            {(['all', 'any', 'always'] as const).map((mode) => (
              <option key={mode} value={mode}>
                {MODE_NAMES[mode]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {rule.mode !== 'always' &&
        rule.conditions.map((condition, j) => {
          const name = `${base}.when.${rule.mode}[${j}]`;
          const field = fields.find((f) => f.id === condition.field);
          const ops = field ? OPS_BY_TYPE[field.type] : OPS;
          const label = `rule ${n}, condition ${j + 1}`;
          return (
            <div key={j} class="condition">
              <Field label={`Field of ${label}`} name={`${name}.field`} problem={problem}>
                {(control) => (
                  <select
                    {...control}
                    value={condition.field}
                    onChange={(e) => {
                      const next = fields.find((f) => f.id === inputValue(e));
                      const op = next && !OPS_BY_TYPE[next.type].includes(condition.op) ? OPS_BY_TYPE[next.type][0] : condition.op;
                      changeCondition(j, { field: inputValue(e), op, value: '' });
                    }}
                  >
                    {!field && <option value={condition.field}>{condition.field || 'Choose a field'}</option>}
                    {fields.map((f) => (
                      <option key={f.id} value={f.id}>
                        {f.label || f.id}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label={`Operator of ${label}`} name={`${name}.op`} problem={problem}>
                {(control) => (
                  <select {...control} value={condition.op} onChange={(e) => changeCondition(j, { op: inputValue(e) as Op })}>
                    {ops.map((op) => (
                      <option key={op} value={op}>
                        {OP_NAMES[op]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <ConditionValue
                label={`Value of ${label}`}
                name={`${name}.value`}
                field={field}
                condition={condition}
                problem={problem}
                onChange={(value) => changeCondition(j, { value })}
              />
              <button
                type="button"
                class="secondary"
                onClick={() => onChange({ ...rule, conditions: rule.conditions.filter((_, i) => i !== j) })}
              >
                Remove condition {j + 1} of rule {n}
              </button>
            </div>
          );
        })}
      {rule.mode !== 'always' && (
        <button
          type="button"
          class="secondary"
          onClick={() => onChange({ ...rule, conditions: [...rule.conditions, newCondition(fields)] })}
        >
          Add a condition to rule {n}
        </button>
      )}
      <TargetFields
        legend={`Rule ${n} routes to`}
        name={`${base}.to`}
        target={rule.to}
        eventTypes={eventTypes}
        problem={problem}
        onChange={(to) => onChange({ ...rule, to })}
      />
      <button type="button" class="danger" onClick={onRemove}>
        Remove rule {n}
      </button>
    </fieldset>
  );
}

/** The value of a condition: a field's options or yes/no where there are some, else text (`in`: comma-separated). */
function ConditionValue(props: {
  label: string;
  name: string;
  field: Question | undefined;
  condition: ConditionDraft;
  problem: FormProblem | null;
  onChange: (value: string) => void;
}): JSX.Element {
  const { label, name, field, condition, problem, onChange } = props;
  const list = condition.op === 'in';
  const choices = field?.type === 'checkbox' ? ['true', 'false'] : field?.options;
  const hint = list ? 'Comma-separated' : field?.type === 'date' ? 'YYYY-MM-DD' : undefined;
  return (
    <Field label={label} name={name} problem={problem} hint={hint}>
      {(control) =>
        choices && !list ? (
          <select {...control} value={condition.value} onChange={(e) => onChange(inputValue(e))}>
            <option value="">Choose</option>
            {choices.map((choice) => (
              <option key={choice} value={choice}>
                {field?.type === 'checkbox' ? (choice === 'true' ? 'checked' : 'not checked') : choice}
              </option>
            ))}
          </select>
        ) : field?.type === 'number' && !list ? (
          <input {...control} type="number" value={condition.value} onInput={(e) => onChange(inputValue(e))} />
        ) : (
          <input {...control} value={condition.value} onInput={(e) => onChange(inputValue(e))} />
        )
      }
    </Field>
  );
}

/** Where a rule or the fallback sends the visitor: an event type (all or some of its hosts), a message, or a link. */
function TargetFields(props: {
  legend: string;
  name: string;
  target: TargetDraft;
  eventTypes: EventType[];
  problem: FormProblem | null;
  onChange: (target: TargetDraft) => void;
}): JSX.Element {
  const { legend, name, target, eventTypes, problem, onChange } = props;
  const members = useMembers();
  const set = (patch: Partial<TargetDraft>): void => onChange({ ...target, ...patch });
  const hosts = eventTypes.find((eventType) => eventType.id === target.eventTypeId)?.hostUserIds ?? [];
  const emailOf = (userId: string): string => members.data?.find((member) => member.userId === userId)?.email ?? userId;
  const error = problem?.fields[name];
  return (
    <fieldset>
      <legend>{legend}</legend>
      <Field label={`${legend}: kind`} name={`${name}.kind`}>
        {(control) => (
          <select {...control} value={target.kind} onChange={(e) => set({ kind: inputValue(e) as TargetKind })}>
            <option value="eventType">An event type</option>
            <option value="message">A message</option>
            <option value="url">A link (https)</option>
          </select>
        )}
      </Field>
      {target.kind === 'eventType' && (
        <>
          <Field label={`${legend}: event type`} name={`${name}.eventTypeId`} problem={problem}>
            {(control) => (
              <select {...control} value={target.eventTypeId} onChange={(e) => set({ eventTypeId: inputValue(e), hostUserIds: null })}>
                <option value="">Choose an event type</option>
                {eventTypes.map((eventType) => (
                  <option key={eventType.id} value={eventType.id}>
                    {eventType.title}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {hosts.length > 1 && (
            <>
              <label class="check">
                <input
                  type="checkbox"
                  checked={target.hostUserIds !== null}
                  onChange={(e) => set({ hostUserIds: checked(e) ? hosts : null })}
                />
                {legend}: only some of its hosts
              </label>
              {target.hostUserIds !== null &&
                hosts.map((userId) => (
                  <label key={userId} class="check">
                    <input
                      type="checkbox"
                      checked={target.hostUserIds?.includes(userId) ?? false}
                      onChange={(e) => {
                        const others = (target.hostUserIds ?? []).filter((id) => id !== userId);
                        set({ hostUserIds: checked(e) ? [...others, userId] : others });
                      }}
                    />
                    {emailOf(userId)}
                  </label>
                ))}
              {problem?.fields[`${name}.hostUserIds`] && <p class="field-error">{problem.fields[`${name}.hostUserIds`]}</p>}
            </>
          )}
        </>
      )}
      {target.kind === 'message' && (
        <Field label={`${legend}: message`} name={`${name}.message`} problem={problem}>
          {(control) => <textarea {...control} value={target.message} onInput={(e) => set({ message: inputValue(e) })} />}
        </Field>
      )}
      {target.kind === 'url' && (
        <Field label={`${legend}: link`} name={`${name}.url`} problem={problem}>
          {(control) => <input {...control} type="url" value={target.url} onInput={(e) => set({ url: inputValue(e) })} />}
        </Field>
      )}
      {error && <p class="field-error">{error}</p>}
    </fieldset>
  );
}

/** The dry run (POST /routing-forms/:id/test): answers in, the route and the rule that chose it out; nothing stored. */
function TryPanel({ form }: { form: RoutingForm }): JSX.Element {
  const [answers, setAnswers] = useState<Record<string, Value | string[]>>({});
  const [result, setResult] = useState<Schemas['RoutingTestResponse'] | null>(null);
  const eventTypes = useEventTypes();
  const members = useMembers();
  const { submit, pending, problem } = useSubmit(async () => {
    setResult(null);
    const given = Object.fromEntries(
      Object.entries(answers).filter(([, value]) => value !== '' && !(Array.isArray(value) && value.length === 0)),
    );
    setResult(await unwrap(api.POST('/v1/routing-forms/{id}/test', { params: { path: { id: form.id } }, body: { answers: given } })));
  });
  const answer = (id: string, value: Value | string[]): void => setAnswers((current) => ({ ...current, [id]: value }));
  return (
    <form onSubmit={submit} noValidate class="panel" aria-label="Try it">
      <h2>Try it</h2>
      <p class="hint">Answers as a visitor would give them; nothing is stored.</p>
      <FormAlert problem={problem} />
      {form.fields.map((field) => {
        const name = `answers.${field.id}`;
        const value = answers[field.id];
        if (field.type === 'checkbox') {
          return (
            <label key={field.id} class="check">
              <input type="checkbox" checked={value === true} onChange={(e) => answer(field.id, checked(e))} />
              {field.label}
            </label>
          );
        }
        if (field.type === 'multiselect') {
          const chosen = Array.isArray(value) ? value : [];
          return (
            <fieldset key={field.id}>
              <legend>{field.label}</legend>
              {(field.options ?? []).map((option) => (
                <label key={option} class="check">
                  <input
                    type="checkbox"
                    checked={chosen.includes(option)}
                    onChange={(e) => answer(field.id, checked(e) ? [...chosen, option] : chosen.filter((x) => x !== option))}
                  />
                  {option}
                </label>
              ))}
              {problem?.fields[name] && <p class="field-error">{problem.fields[name]}</p>}
            </fieldset>
          );
        }
        return (
          <Field key={field.id} label={field.label} name={name} problem={problem}>
            {(control) =>
              field.type === 'select' ? (
                <select {...control} value={String(value ?? '')} onChange={(e) => answer(field.id, inputValue(e))}>
                  <option value="">No answer</option>
                  {(field.options ?? []).map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </select>
              ) : field.type === 'number' ? (
                <input
                  {...control}
                  type="number"
                  value={String(value ?? '')}
                  onInput={(e) => answer(field.id, inputValue(e) === '' ? '' : Number(inputValue(e)))}
                />
              ) : field.type === 'date' ? (
                <input {...control} type="date" value={String(value ?? '')} onInput={(e) => answer(field.id, inputValue(e))} />
              ) : (
                <input {...control} value={String(value ?? '')} onInput={(e) => answer(field.id, inputValue(e))} />
              )
            }
          </Field>
        );
      })}
      <button type="submit" disabled={pending}>
        Try these answers
      </button>
      {result && (
        <p role="status" class="result">
          {result.matchedRoute === null ? 'No rule holds: the fallback' : `Rule ${result.matchedRoute + 1} holds`} →{' '}
          {targetText(result.route, eventTypes.data ?? [], members.data ?? [])}
        </p>
      )}
    </form>
  );
}

function answerText(value: Schemas['RoutingAnswerView']['value']): string {
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** The form's responses, newest first (GET /routing-forms/:id/responses): answers, route, rule, booking, when. */
function ResponsesList({ form }: { form: RoutingForm }): JSX.Element {
  const { timeZone } = useSession();
  const eventTypes = useEventTypes();
  const members = useMembers();
  const [page, setPage] = useState(1);
  const list = useLoad(
    async () => ({
      page,
      ...(await unwrap(api.GET('/v1/routing-forms/{id}/responses', { params: { path: { id: form.id }, query: { page, limit: 50 } } }))),
    }),
    [form.id, page],
  );
  return (
    <section aria-labelledby="responses-heading">
      <h2 id="responses-heading">Responses</h2>
      <button type="button" class="secondary" onClick={list.reload}>
        Refresh responses
      </button>
      <Show loaded={list} isEmpty={(data) => data.responses.length === 0 && page === 1} empty="No responses yet.">
        {(data) => (
          <>
            <Table caption="Responses, newest first" columns={['Created', 'Answers', 'Route', 'Rule', 'Booking']}>
              {data.responses.map((response) => (
                <tr key={response.id}>
                  <td>{formatDateTime(response.createdAt, timeZone)}</td>
                  <td>
                    {response.answers.length === 0
                      ? '(erased)'
                      : response.answers.map((a) => `${a.label}: ${answerText(a.value)}`).join('; ')}
                  </td>
                  <td>{targetText(response.route, eventTypes.data ?? [], members.data ?? [])}</td>
                  <td>{ruleText(response.matchedRoute)}</td>
                  <td>{response.bookingId ? <a href={`/admin/bookings/${response.bookingId}`}>{response.bookingId}</a> : '—'}</td>
                </tr>
              ))}
            </Table>
            <div class="actions">
              <button type="button" class="secondary" disabled={data.page === 1} onClick={() => setPage(data.page - 1)}>
                Newer responses
              </button>
              <span>
                Page {data.page} · {data.totalCount} in all
              </span>
              <button type="button" class="secondary" disabled={!data.hasMore} onClick={() => setPage(data.page + 1)}>
                Older responses
              </button>
            </div>
          </>
        )}
      </Show>
    </section>
  );
}
