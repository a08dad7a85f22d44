import type { Handlers, RouteHandler } from '../http/route-table.ts';
import type { Http } from '@pressroom/schemas';
import { describeVariables } from '@pressroom/domain';
import { tenantOf } from '../http/auth.ts';
import { sendError } from '../http/error-mapper.ts';
import { variablesOf, type Templates } from '../templates.ts';

/**
 * Endpoints the clients of this API family (the pdf noodle / pdforge SDK, MCP servers, no-code
 * integrations) call, in that API's shapes, beside our own template API.
 */
export function integrationRoutes(deps: {
  templates: Templates;
}): Handlers<'listIntegrationTemplates' | 'createIntegrationTemplate' | 'getIntegrationTemplate' | 'getIntegrationTemplateVariables'> {
  const listIntegrationTemplates: RouteHandler = async (ctx) => {
    const heads = await deps.templates.list(tenantOf(ctx).tenantId);
    const body: Http.IntegrationTemplateList = {
      templates: heads.map((h) => ({
        id: h.templateId,
        displayName: h.name,
        name: h.name,
        createdAt: h.createdAt,
        updatedAt: h.updatedAt,
        version: h.latestVersion,
      })),
    };
    ctx.body = body;
  };

  // AI generation of templates is the real API's, not ours: a clear answer in the one error shape.
  const createIntegrationTemplate: RouteHandler = (ctx) => {
    tenantOf(ctx);
    sendError(
      ctx,
      501,
      'NOT_IMPLEMENTED',
      'Creating templates from a prompt (AI generation) is not offered by Pressroom. Create the template with POST /v1/templates {name, content}.',
    );
  };

  const getIntegrationTemplate: RouteHandler = async (ctx) => {
    const { head, version: v } = await deps.templates.read(tenantOf(ctx).tenantId, ctx.params.templateId ?? '');
    const p = v.pdfParams ?? {};
    // Chromium-style templates when the template prints them (displayHeaderFooter), else its Eta header and footer.
    const chromium = p.displayHeaderFooter === true;
    const headerTemplate = chromium ? p.headerTemplate : v.header;
    const footerTemplate = chromium ? p.footerTemplate : v.footer;
    const body: Http.IntegrationTemplate = {
      template: {
        id: v.templateId,
        displayName: v.name,
        createdAt: head.createdAt,
        updatedAt: v.createdAt,
        style: {
          ...(headerTemplate !== undefined ? { headerTemplate } : {}),
          ...(footerTemplate !== undefined ? { footerTemplate } : {}),
          displayHeaderFooter: chromium || v.header !== undefined || v.footer !== undefined,
        },
        type: 'HTML',
        htmlTemplate: v.content,
        version: v.version,
      },
    };
    ctx.body = body;
  };

  const getIntegrationTemplateVariables: RouteHandler = async (ctx) => {
    const { version } = await deps.templates.read(tenantOf(ctx).tenantId, ctx.params.templateId ?? '');
    const variables = variablesOf(version);
    const body: Http.IntegrationTemplateVariables = {
      id: version.templateId,
      version: version.version,
      variables: describeVariables(variables.schema),
      schema: variables.schema,
    };
    ctx.body = body;
  };

  return { listIntegrationTemplates, createIntegrationTemplate, getIntegrationTemplate, getIntegrationTemplateVariables };
}
