import * as S from '@pressroom/schemas';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ref = (name: string) => json({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({ description, content: ref('ErrorBody') });
const path = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const unauthorized = error('Missing or unknown API key.');
const notFound = error('Not found (or another tenant’s).');
const invalid = error('Invalid body; `details` names each bad field.');
const fileBytes = {
  description: 'The rendered file.',
  content: {
    'application/pdf': { schema: { type: 'string', format: 'binary' } },
    'image/png': { schema: { type: 'string', format: 'binary' } },
  },
};
const previewErrors = {
  '400': invalid,
  '401': unauthorized,
  '422': error("The render failed by the request's doing (TEMPLATE_ERROR, NAVIGATION_REFUSED, PAGE_SETUP_INVALID, OUTPUT_TOO_LARGE)."),
  '504': error('The preview did not finish within the sync wait (PREVIEW_TIMEOUT) or hit its time limit.'),
};

/** Template versions, previews, assets and the integration endpoints of the OpenAPI document. */
export const templatePaths = {
  '/v1/templates/{templateId}/versions': {
    get: {
      summary: 'Every version of a template, oldest first.',
      parameters: [path('templateId')],
      responses: { '200': { description: 'Versions.', content: ref('TemplateVersionList') }, '401': unauthorized, '404': notFound },
    },
  },
  '/v1/templates/{templateId}/versions/{version}': {
    get: {
      summary: 'One immutable version of a template.',
      parameters: [path('templateId'), path('version')],
      responses: { '200': { description: 'The version.', content: ref('TemplateResource') }, '401': unauthorized, '404': notFound },
    },
  },
  '/v1/templates/{templateId}/preview': {
    post: {
      summary: 'Render a stored template and answer the bytes directly (for editors).',
      parameters: [path('templateId')],
      requestBody: { required: true, content: ref('TemplatePreviewBody') },
      responses: { '200': fileBytes, '404': notFound, ...previewErrors },
    },
  },
  '/v1/templates/preview': {
    post: {
      summary: 'Render unsaved template content and answer the bytes directly.',
      requestBody: { required: true, content: ref('UnsavedPreviewBody') },
      responses: { '200': fileBytes, ...previewErrors },
    },
  },
  '/v1/assets': {
    get: { summary: 'Your fonts and images.', responses: { '200': { description: 'Assets.' }, '401': unauthorized } },
    post: {
      summary: 'Upload a font or image (base64 in JSON); templates use it as https://assets.pressroom.invalid/<name>.',
      requestBody: { required: true, content: ref('AssetUploadBody') },
      responses: {
        '201': { description: 'Stored.', content: ref('AssetResource') },
        '400': invalid,
        '401': unauthorized,
        '413': error('Asset too large.'),
      },
    },
  },
  '/v1/assets/{name}': {
    parameters: [path('name')],
    get: {
      summary: 'An asset’s details.',
      responses: { '200': { description: 'The asset.', content: ref('AssetResource') }, '404': notFound },
    },
    delete: { summary: 'Delete an asset.', responses: { '204': { description: 'Deleted.' }, '404': notFound } },
  },
  '/v1/assets/{name}/content': {
    get: {
      summary: 'An asset’s bytes.',
      parameters: [path('name')],
      responses: { '200': { description: 'The bytes, with their content type.' }, '404': notFound },
    },
  },
  '/v1/integration/templates': {
    get: {
      summary: 'Your templates in the shape clients of this API family expect: {templates: [{id, displayName, …}]}.',
      responses: { '200': { description: 'Templates.', content: ref('IntegrationTemplateList') }, '401': unauthorized },
    },
  },
  '/v1/integration/templates/{templateId}': {
    get: {
      summary: 'One template (its latest version) in the shape clients of this API family expect.',
      parameters: [path('templateId')],
      responses: { '200': { description: 'The template.', content: ref('IntegrationTemplate') }, '401': unauthorized, '404': notFound },
    },
  },
  '/v1/integration/templates/create': {
    post: {
      summary: 'AI generation of a template from a prompt: not offered by Pressroom (501 NOT_IMPLEMENTED).',
      responses: { '501': error('Not offered: create templates with POST /v1/templates.'), '401': unauthorized },
    },
  },
  '/v1/integration/templates/{templateId}/variables': {
    get: {
      summary: 'The variables a template expects.',
      parameters: [path('templateId')],
      responses: {
        '200': { description: 'Variables.', content: ref('IntegrationTemplateVariables') },
        '401': unauthorized,
        '404': notFound,
      },
    },
  },
};

export const templateSchemas = {
  TemplateVersionList: S.TemplateVersionList,
  TemplatePreviewBody: S.TemplatePreviewBody,
  UnsavedPreviewBody: S.UnsavedPreviewBody,
  AssetUploadBody: S.AssetUploadBody,
  AssetResource: S.AssetResource,
  IntegrationTemplateList: S.IntegrationTemplateList,
  IntegrationTemplate: S.IntegrationTemplate,
  IntegrationTemplateVariables: S.IntegrationTemplateVariables,
};
