import { describe, expect, it } from 'vitest';
import { readCompatBatchBody, readCompatBody, readCompatRenderBody } from './compat-request.ts';
import { PAPER_SIZES_PX, canonicalLength, canonicalPaperFormat } from './paper.ts';

describe('readCompatRenderBody', () => {
  it('drops placeholders of optional fields but keeps a boolean false', () => {
    const { body, unknown } = readCompatRenderBody(
      {
        templateId: 't1',
        data: { a: 1 },
        s3_bucket: '',
        s3_key: null,
        externalId: false,
        metadata: '',
        signedUrlExpiresIn: null,
        convertToImage: false,
        hasCover: '',
        pdfParams: { format: '', printBackground: false, margin: { top: '', left: null }, scale: null },
      },
      'template-sync',
    );
    expect(body).toEqual({ templateId: 't1', data: { a: 1 }, convertToImage: false, pdfParams: { printBackground: false, margin: {} } });
    expect(unknown).toEqual([]);
  });

  it('reads JSON-typed parameters sent as JSON strings, and booleans and numbers sent as strings', () => {
    const { body } = readCompatRenderBody(
      {
        templateId: 't1',
        webhook: 'https://example.com/h',
        data: '{"name":"Ada","lines":[1,2]}',
        metadata: '{"title":"T","keywords":"a, b"}',
        pdfParams: '{"format":"letter","margin":{"top":20}}',
        convertToImage: 'TRUE',
        signedUrlExpiresIn: '600',
      },
      'template-async',
    );
    expect(body).toEqual({
      templateId: 't1',
      webhook: 'https://example.com/h',
      data: { name: 'Ada', lines: [1, 2] },
      metadata: { title: 'T', keywords: ['a', 'b'] },
      pdfParams: { format: 'Letter', margin: { top: '20px' } },
      convertToImage: true,
      signedUrlExpiresIn: 600,
    });
  });

  it('leaves a JSON string that is not an object for the schema to refuse', () => {
    expect(readCompatRenderBody({ templateId: 't', data: '[1]' }, 'template-sync').body).toEqual({ templateId: 't', data: '[1]' });
    expect(readCompatRenderBody({ templateId: 't', data: '{oops' }, 'template-sync').body).toEqual({ templateId: 't', data: '{oops' });
  });

  it('keeps required fields as sent, except null (then it is missing)', () => {
    expect(readCompatRenderBody({ html: '', webhook: null }, 'html-async').body).toEqual({ html: '' });
  });

  it('reads Puppeteer page.pdf() spellings', () => {
    const { body } = readCompatRenderBody(
      {
        html: '<p>x</p>',
        pdfParams: {
          format: 'a2',
          width: 800,
          height: '600',
          margin: { top: '1CM', right: 0, bottom: ' 12.5 mm ', left: 37.7952 },
          displayHeaderFooter: true,
          headerTemplate: '',
          footerTemplate: null,
          outline: 'true',
          tagged: true,
          omitBackground: false,
          timeout: '5000',
        },
      },
      'html-sync',
    );
    expect(body).toEqual({
      html: '<p>x</p>',
      pdfParams: {
        format: 'A2',
        width: '800px',
        height: '600px',
        margin: { top: '1cm', right: '0', bottom: '12.5mm', left: '37.7952px' },
        displayHeaderFooter: true,
        headerTemplate: '',
        outline: true,
        tagged: true,
        omitBackground: false,
        timeout: 5000,
      },
    });
  });

  it('drops and lists unknown fields, at every level it knows', () => {
    const { body, unknown } = readCompatRenderBody(
      {
        html: 'x',
        templateId: 'not for html',
        colour: 'red',
        pdfParams: { path: '/tmp/x.pdf', margin: { middle: 1 } },
        metadata: { copyright: 'me' },
      },
      'html-sync',
    );
    expect(body).toEqual({ html: 'x', pdfParams: { margin: {} }, metadata: {} });
    expect(unknown).toEqual(['templateId', 'colour', 'pdfParams.path', 'pdfParams.margin.middle', 'metadata.copyright']);
  });

  it('knows debug and templateVersion on template endpoints only, webhook on async ones only', () => {
    expect(readCompatRenderBody({ html: 'x', debug: true, webhook: 'https://e.com' }, 'html-sync').unknown).toEqual(['debug', 'webhook']);
    expect(readCompatRenderBody({ templateId: 't', debug: true, templateVersion: '2' }, 'template-sync')).toEqual({
      body: { templateId: 't', debug: true, templateVersion: 2 },
      unknown: [],
    });
  });

  it('never touches data itself, nor a body that is not an object', () => {
    const data = { a: '', b: null, c: false, nested: { d: '' } };
    expect(readCompatRenderBody({ templateId: 't', data }, 'template-sync').body).toEqual({ templateId: 't', data });
    expect(readCompatRenderBody([1], 'template-sync').body).toEqual([1]);
  });
});

describe('paper', () => {
  it('reads formats in any case', () => {
    expect(canonicalPaperFormat('ledger')).toBe('Ledger');
    expect(canonicalPaperFormat(' A0 ')).toBe('A0');
    expect(canonicalPaperFormat('B5')).toBeUndefined();
  });

  it('has Puppeteer sizes (CSS px at 96 per inch)', () => {
    expect(PAPER_SIZES_PX.Letter).toEqual({ width: 816, height: 1056 });
    expect(PAPER_SIZES_PX.Ledger).toEqual({ width: 1632, height: 1056 });
    expect(PAPER_SIZES_PX.A0.width).toBeCloseTo(3178.58, 1);
    expect(PAPER_SIZES_PX.A0.height).toBeCloseTo(4493.86, 1);
  });

  it('reads numbers as CSS px and leaves what it cannot read', () => {
    expect(canonicalLength(96)).toBe('96px');
    expect(canonicalLength(0)).toBe('0');
    expect(canonicalLength('0.5IN')).toBe('0.5in');
    expect(canonicalLength('.5in')).toBe('0.5in');
    expect(canonicalLength(-3)).toBe(-3);
    expect(canonicalLength('10pt')).toBe('10pt');
    expect(canonicalLength(1 / 3)).toBe('0.3333px');
  });
});

describe('debugChecks', () => {
  it('says which variables data provides, and which data no variable uses', async () => {
    const { debugChecks } = await import('./debug-checks.ts');
    const vars = [
      { name: 'customer', type: 'object', required: true },
      { name: 'customer.name', type: 'string', required: true },
      { name: 'lines[]', type: 'array', required: true },
      { name: 'lines[].sku', type: 'string', required: false },
      { name: 'note', type: 'any', required: false },
    ];
    expect(debugChecks(vars, { customer: { name: 'Ada' }, lines: [{ qty: 1 }, { sku: 'A' }], costumer: 1 })).toEqual({
      variables: [
        { name: 'customer', type: 'object', required: true, provided: true },
        { name: 'customer.name', type: 'string', required: true, provided: true },
        { name: 'lines[]', type: 'array', required: true, provided: true },
        { name: 'lines[].sku', type: 'string', required: false, provided: true },
        { name: 'note', type: 'any', required: false, provided: false },
      ],
      unusedData: ['costumer'],
    });
  });
});

describe('readCompatBody / readCompatBatchBody: the same rules for the PDF tools and batches', () => {
  const schema = {
    properties: {
      url: { type: 'string' },
      expiration: { type: 'integer' },
      async: { type: 'boolean' },
      metadata: { type: 'object' },
      compressLevel: { anyOf: [{ const: 'low' }, { const: 'high' }] },
    },
    required: ['url'],
  };

  it('drops placeholders and unknown members, reads JSON strings, numbers and booleans as meant', () => {
    const read = readCompatBody(
      {
        url: 'https://x/a.pdf',
        expiration: '3600',
        async: 'true',
        metadata: '{"title":"T"}',
        compressLevel: '',
        finalFilename: null,
        typo: 1,
      },
      schema,
    );
    expect(read).toEqual({
      body: { url: 'https://x/a.pdf', expiration: 3600, async: true, metadata: { title: 'T' } },
      unknown: ['finalFilename', 'typo'],
    });
  });

  it('keeps false on a boolean and leaves a body that is not an object to the schema', () => {
    expect(readCompatBody({ url: 'u', async: false }, schema).body).toEqual({ url: 'u', async: false });
    expect(readCompatBody('nope', schema)).toEqual({ body: 'nope', unknown: [] });
  });

  it('reads each batch item as a sync render body and names unknown item fields by index', () => {
    const batchSchema = {
      properties: { items: { type: 'array' }, merge: { type: 'boolean' }, webhook: { type: 'string' } },
      required: ['items'],
    };
    const read = readCompatBatchBody(
      {
        items: [
          { html: '<p>a</p>', pdfParams: '{"format":"a4"}', colour: 'red' },
          { html: '<p>b</p>', s3_key: '' },
        ],
        merge: 'false',
        webhook: '',
      },
      batchSchema,
      'html',
    );
    expect(read.body).toEqual({ items: [{ html: '<p>a</p>', pdfParams: { format: 'A4' } }, { html: '<p>b</p>' }], merge: false });
    expect(read.unknown).toEqual(['items.0.colour']);
  });
});

describe('readCompatBody: required members', () => {
  it('reads a required object sent as JSON text as that object, and never drops a required member', () => {
    const schema = { properties: { url: { type: 'string' }, metadata: { type: 'object' } }, required: ['url', 'metadata'] };
    expect(readCompatBody({ url: 'u', metadata: '{"title":"T"}' }, schema).body).toEqual({ url: 'u', metadata: { title: 'T' } });
    expect(readCompatBody({ url: '', metadata: false }, schema).body).toEqual({ url: '', metadata: false });
  });
});

describe('readCompatBody: forms within forms, and lists', () => {
  const schema = {
    properties: {
      urls: { type: 'array' },
      metadata: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          keywords: { type: 'array' },
          pdfVersion: { type: 'number' },
          marked: { type: 'boolean' },
          trapped: { anyOf: [{ const: 'True' }, { const: 'False' }] },
        },
      },
      pdfOptions: {
        type: 'object',
        properties: { scale: { type: 'number' }, margin: { type: 'object', properties: { top: { anyOf: [] }, left: { anyOf: [] } } } },
      },
    },
    required: ['metadata'],
  };

  it('reads the members of nested objects by the same rules, and names their unknown members by path', () => {
    const read = readCompatBody(
      {
        metadata: '{"title":"T","keywords":"a, b","pdfVersion":"1.7","marked":false,"trapped":"","author":"x"}',
        pdfOptions: { scale: '', margin: { top: '', left: 20, inside: 1 } },
      },
      schema,
    );
    expect(read).toEqual({
      body: { metadata: { title: 'T', keywords: ['a, b'], pdfVersion: 1.7, marked: false }, pdfOptions: { margin: { left: 20 } } },
      unknown: ['metadata.author', 'pdfOptions.margin.inside'],
    });
  });

  it('reads a list sent as JSON text as that list, other text as a list of one, and drops an empty one', () => {
    const urls = (value: unknown) => readCompatBody({ metadata: {}, urls: value }, schema).body;
    expect(urls('["https://a/1.pdf","https://a/2.pdf"]')).toEqual({ metadata: {}, urls: ['https://a/1.pdf', 'https://a/2.pdf'] });
    expect(urls('https://a/1.pdf')).toEqual({ metadata: {}, urls: ['https://a/1.pdf'] });
    expect(urls('')).toEqual({ metadata: {} });
    expect(urls(['x'])).toEqual({ metadata: {}, urls: ['x'] });
  });

  it('reads a batch whose items come as JSON text', () => {
    const batchSchema = { properties: { items: { type: 'array' }, merge: { type: 'boolean' } }, required: ['items'] };
    const read = readCompatBatchBody(
      { items: '[{"templateId":"t","data":"{\\"n\\":1}","s3_key":""}]', merge: '' },
      batchSchema,
      'template',
    );
    expect(read).toEqual({ body: { items: [{ templateId: 't', data: { n: 1 } }] }, unknown: [] });
  });
});
