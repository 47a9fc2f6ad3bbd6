import { isEmail } from 'class-validator';
import { AppError, ErrorCode } from '@app/common';
import type { BookingQuestion, QuestionType } from '../event-types/index.js';

export type AnswerValue = string | number | boolean | string[];

/** An answer as the booking keeps it: the question as it was asked (label snapshot) and the value. */
export interface BookingAnswer {
  id: string;
  label: string;
  type: QuestionType;
  value: AnswerValue;
}

export interface AnswerProblem {
  field: string;
  message: string;
}

/** As for unknown fields of a body (api-rules.md § Basics): a thousand unknown ids get a short 400. */
export const MAX_UNKNOWN_ANSWERS_NAMED = 20;

const PHONE = /^\+?[0-9 ()./-]{5,30}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isRealDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Why `value` is not an answer to `question`, or null when it is one. */
function problemWith(question: BookingQuestion, value: unknown): string | null {
  switch (question.type) {
    case 'text':
    case 'textarea':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > question.maxLength! ? `must be at most ${question.maxLength} characters` : null;
    case 'email':
      return typeof value === 'string' && value.length <= 254 && isEmail(value) ? null : 'must be an email address';
    case 'phone':
      return typeof value === 'string' && PHONE.test(value) ? null : 'must be a phone number';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a finite number';
    case 'select':
      return typeof value === 'string' && question.options!.includes(value) ? null : `must be one of: ${question.options!.join(', ')}`;
    case 'multiselect':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && question.options!.includes(v))) {
        return `must be an array of: ${question.options!.join(', ')}`;
      }
      return new Set(value).size === value.length ? null : 'must not repeat an option';
    case 'checkbox':
      if (typeof value !== 'boolean') return 'must be true or false';
      return question.required && !value ? 'must be checked' : null;
    case 'date':
      return typeof value === 'string' && isRealDate(value) ? null : 'must be a date (YYYY-MM-DD)';
  }
}

/** A value with nothing in it counts as not given: a required question needs more than that. */
function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/**
 * Checks `answers` (keyed by question id) against the event type's questions: a missing required answer, an
 * unknown id or a wrong value is a problem naming `answers.<id>`. The answers come back in the questions'
 * order, each with the question's label and type as asked now; optional questions left blank are left out.
 */
export function checkAnswers(
  questions: readonly BookingQuestion[],
  answers: Readonly<Record<string, unknown>>,
): { answers: BookingAnswer[]; problems: AnswerProblem[] } {
  const problems: AnswerProblem[] = [];
  const known = new Set(questions.map((question) => question.id));
  const unknown = Object.keys(answers).filter((id) => !known.has(id));
  for (const id of unknown.slice(0, MAX_UNKNOWN_ANSWERS_NAMED))
    problems.push({ field: `answers.${id}`, message: `there is no question '${id}'` });
  const kept: BookingAnswer[] = [];
  for (const question of questions) {
    // Own keys only: an id such as `constructor` is a question like any other, never Object.prototype's member.
    const value = Object.hasOwn(answers, question.id) ? answers[question.id] : undefined;
    const field = `answers.${question.id}`;
    if (isBlank(value) && !(question.type === 'checkbox' && value === false)) {
      if (question.required) problems.push({ field, message: `${question.label} is required` });
      continue;
    }
    const problem = problemWith(question, value);
    if (problem !== null) problems.push({ field, message: `${field} ${problem}` });
    else kept.push({ id: question.id, label: question.label, type: question.type, value: value as AnswerValue });
  }
  return { answers: kept, problems };
}

/** The answers as a booking keeps them; 400 naming each one that does not fit the event type's questions. */
export function acceptedAnswers(questions: readonly BookingQuestion[], answers: Readonly<Record<string, unknown>>): BookingAnswer[] {
  const checked = checkAnswers(questions, answers);
  if (checked.problems.length > 0)
    throw new AppError(ErrorCode.VALIDATION_ERROR, 'The answers do not fit the event type’s questions', checked.problems);
  return checked.answers;
}

/** An answer's value as a person reads it (mails, `.ics`). */
export function answerText(answer: Pick<BookingAnswer, 'type' | 'value'>): string {
  if (typeof answer.value === 'boolean') return answer.value ? 'Yes' : 'No';
  if (Array.isArray(answer.value)) return answer.value.join(', ');
  return String(answer.value);
}
