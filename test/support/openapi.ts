import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin, { type FormatsPlugin } from 'ajv-formats';
import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { isIanaTimeZone } from '@app/common';

// ajv-formats is CommonJS (`module.exports = plugin`, plus a `default` property): Jest's ESM loader hands
// over either the plugin or the module object, so take whichever is the function.
const formatsModule = addFormatsPlugin as unknown as FormatsPlugin | { default: FormatsPlugin };
const addFormats: FormatsPlugin = 'default' in formatsModule ? formatsModule.default : formatsModule;

interface Route {
  pattern: RegExp;
  params: number;
  item: Record<string, OperationObject>;
  template: string;
}

/** The published document of a running app, compiled once, that every response of the e2e suite is held to. */
export class ResponseContract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenAPIObject) {
    addFormats(this.ajv);
    this.ajv.addFormat('iana-time-zone', { type: 'string', validate: isIanaTimeZone });
    this.ajv.addSchema({ components: document.components }, 'openapi');
    this.routes = Object.entries(document.paths)
      .map(([template, item]) => ({
        template,
        item: item as Record<string, OperationObject>,
        params: (template.match(/\{/g) ?? []).length,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** Throws when the document does not describe this answer: a status it does not list, or a body its schema refuses. */
  check(method: string, url: string, status: number, contentType: string, body: unknown): void {
    const path = new URL(url).pathname;
    const route = this.routes.find((candidate) => candidate.pattern.test(path));
    const operation = route?.item[method.toLowerCase()];
    if (!route || !operation) return; // not an operation of the document: unknown routes and 405s are checked by their own tests
    const where = `${method} ${route.template} → ${status}`;
    const response = (operation.responses[String(status)] ?? operation.responses.default) as ResponseObject | undefined;
    if (!response)
      throw new Error(`${where}: the OpenAPI document lists no such status (it lists ${Object.keys(operation.responses).join(', ')})`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return;
    if (!contentType.includes('json')) throw new Error(`${where}: documented as JSON, answered ${contentType || 'no content type'}`);
    const validate = this.validatorFor(`${where}`, schema);
    if (!validate(body)) {
      throw new Error(
        `${where}: the body does not match the document: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}\n${JSON.stringify(body).slice(0, 2000)}`,
      );
    }
  }

  private validatorFor(key: string, schema: object): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as object;
      validate = this.ajv.compile(rewritten);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

const contracts = new Map<string, Promise<ResponseContract>>();
const byDocument = new Map<string, ResponseContract>();

/**
 * One contract per running app, its document fetched over HTTP as a partner would; apps of one file that publish the
 * same document share one, so its validators are compiled once. The document is a function of the app's modules and its
 * public URL only (apps/api/src/openapi/openapi-document.ts): given that as `documentKey`, a second app with the same
 * key is held to the first one's document without building its own (about 0.4 s of CPU per app).
 */
export function responseContractFor(baseUrl: string, documentKey?: string): Promise<ResponseContract> {
  let contract = contracts.get(baseUrl) ?? (documentKey === undefined ? undefined : contracts.get(`key:${documentKey}`));
  if (!contract) {
    contract = fetch(`${baseUrl}/docs-json`)
      .then((response) => response.text())
      .then((text) => {
        const shared = byDocument.get(text) ?? new ResponseContract(JSON.parse(text) as OpenAPIObject);
        byDocument.set(text, shared);
        return shared;
      });
    if (documentKey !== undefined) contracts.set(`key:${documentKey}`, contract);
  }
  contracts.set(baseUrl, contract);
  return contract;
}
