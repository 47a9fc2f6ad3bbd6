import { AppError } from '@app/common';

/** Booking questions (api-rules.md § Browser booking): the event type's own form. */
export const QUESTION_TYPES = ['text', 'textarea', 'email', 'phone', 'number', 'select', 'multiselect', 'checkbox', 'date'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const MAX_QUESTIONS = 20;
export const QUESTION_ID = /^[a-z][a-z0-9_]*$/;

/** A question as stored and shown: defaults written out, so a booking form needs nothing else. */
export interface BookingQuestion {
  id: string;
  label: string;
  type: QuestionType;
  required: boolean;
  /** select and multiselect only. */
  options?: string[];
  placeholder?: string;
  /** text and textarea only (default 500 and 5000). */
  maxLength?: number;
}

/** What a write may send: the DTO has checked each field on its own. */
export interface QuestionInput {
  id: string;
  label: string;
  type: QuestionType;
  required?: boolean;
  options?: string[];
  placeholder?: string;
  maxLength?: number;
}

const DEFAULT_MAX_LENGTH: Partial<Record<QuestionType, number>> = { text: 500, textarea: 5000 };
const HAS_OPTIONS: readonly QuestionType[] = ['select', 'multiselect'];

/**
 * The rules between fields that the DTO cannot see: unique ids, options exactly for select and multiselect,
 * maxLength only for text and textarea. 400 naming `questions[i].<field>`.
 */
export function normalizeQuestions(inputs: readonly QuestionInput[], list = 'questions'): BookingQuestion[] {
  const seen = new Set<string>();
  return inputs.map((input, index) => {
    const field = (name: string): string => `${list}[${index}].${name}`;
    if (seen.has(input.id)) throw AppError.validation(field('id'), `question id '${input.id}' is used twice`);
    seen.add(input.id);
    const hasOptions = HAS_OPTIONS.includes(input.type);
    if (hasOptions && input.options === undefined) throw AppError.validation(field('options'), `${input.type} questions need options`);
    if (!hasOptions && input.options !== undefined) {
      throw AppError.validation(field('options'), 'options are only for select and multiselect questions');
    }
    const defaultMax = DEFAULT_MAX_LENGTH[input.type];
    if (defaultMax === undefined && input.maxLength !== undefined) {
      throw AppError.validation(field('maxLength'), 'maxLength is only for text and textarea questions');
    }
    return {
      id: input.id,
      label: input.label,
      type: input.type,
      required: input.required ?? false,
      ...(input.options !== undefined ? { options: [...input.options] } : {}),
      ...(input.placeholder !== undefined ? { placeholder: input.placeholder } : {}),
      ...(defaultMax !== undefined ? { maxLength: input.maxLength ?? defaultMax } : {}),
    };
  });
}
