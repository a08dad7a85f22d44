import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PDFDict, PDFDocument } from 'pdf-lib';

/** pdf-lib, loaded on first use (~0.2 s of CPU: not on the path of a start). */
const pdfLib = () => import('pdf-lib');
import { ghostscriptCompressArgs, pdfVersionText, qpdfPageSelection, type CompressLevel, type PdfToolMetadata } from '@pressroom/domain';
import { PdfToolFailure, type PdfToolkit } from '@pressroom/core';
import { runProgram, type ProgramLimits, type ProgramResult } from './run-program.ts';

export interface QpdfToolkitOptions {
  /** Each program run (one qpdf or gs call) must end within this time. Default 60 s. */
  timeoutMs?: number;
  /** Address-space cap of each run. Default 1 GiB. */
  maxMemoryBytes?: number;
  /** Largest file a run may write. Default 512 MiB. */
  maxOutputBytes?: number;
  qpdfPath?: string;
  gsPath?: string;
}

/** qpdf's exit codes: 0 fine, 3 warnings only (a damaged file it repaired), 2 errors. */
const QPDF_WARNINGS = 3;

/**
 * The PDF tools on qpdf (merge, split, repair, repack, version) and Ghostscript (image
 * recompression), each run a child process in a private temporary directory that is removed
 * afterwards. Every input goes through qpdf first: what qpdf cannot read is INPUT_INVALID
 * before any other program sees it. Metadata is written with pdf-lib on qpdf's rewrite of the
 * input (already bounded and repaired) and checked by qpdf again.
 */
export function createQpdfToolkit(opts: QpdfToolkitOptions = {}): PdfToolkit {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const limits: ProgramLimits = {
    timeoutMs,
    maxMemoryBytes: opts.maxMemoryBytes ?? 1024 * 1024 * 1024,
    maxCpuSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)),
    maxOutputBytes: opts.maxOutputBytes ?? 512 * 1024 * 1024,
  };
  const qpdf = opts.qpdfPath ?? 'qpdf';
  const gs = opts.gsPath ?? 'gs';

  async function inDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-tool-'));
    try {
      return await fn(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function run(program: string, args: string[], dir: string, what: string): Promise<ProgramResult> {
    let result: ProgramResult;
    try {
      result = await runProgram(program, args, limits, dir);
    } catch (err) {
      throw new PdfToolFailure('TOOL_ERROR', `${program} could not be started: ${(err as Error).message}`);
    }
    if (result.timedOut) throw new PdfToolFailure('TOOL_TIMEOUT', `${what} took longer than ${Math.round(timeoutMs / 1000)} seconds.`);
    return result;
  }

  /** A qpdf run whose failure means the input is unreadable (or over a limit). */
  async function qpdfOn(args: string[], dir: string, what: string): Promise<ProgramResult> {
    const result = await run(qpdf, ['--warning-exit-0', '--no-warn', ...args], dir, what);
    if (result.code === 0 || result.code === QPDF_WARNINGS) return result;
    if (result.signal) throw new PdfToolFailure('INPUT_INVALID', `${what} exceeded the resource limits for one document.`);
    throw new PdfToolFailure('INPUT_INVALID', `${what}: the file is not a PDF that can be read (${summary(result.stderr, dir)}).`);
  }

  async function write(dir: string, name: string, bytes: Uint8Array): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return path;
  }

  async function pageCountIn(dir: string, path: string, what: string): Promise<number> {
    const out = await qpdfOn(['--show-npages', '--', path], dir, what);
    const n = Number(out.stdout.trim());
    if (!Number.isSafeInteger(n) || n < 1) throw new PdfToolFailure('INPUT_INVALID', `${what}: the file has no pages.`);
    return n;
  }

  return {
    pageCount: (pdf) => inDir(async (dir) => pageCountIn(dir, await write(dir, 'in.pdf', pdf), 'Reading the document')),

    merge: (pdfs) =>
      inDir(async (dir) => {
        const paths: string[] = [];
        for (const [i, pdf] of pdfs.entries()) {
          const path = await write(dir, `in-${i + 1}.pdf`, pdf);
          await pageCountIn(dir, path, `Reading document ${i + 1}`);
          paths.push(path);
        }
        const out = join(dir, 'out.pdf');
        await qpdfOn(['--empty', '--pages', ...paths, '--', out], dir, 'Merging the documents');
        return readFile(out);
      }),

    split: (pdf, spans) =>
      inDir(async (dir) => {
        const input = await write(dir, 'in.pdf', pdf);
        await pageCountIn(dir, input, 'Reading the document');
        const parts: Uint8Array[] = [];
        for (const [i, span] of spans.entries()) {
          const out = join(dir, `part-${i + 1}.pdf`);
          await qpdfOn([input, '--pages', '.', qpdfPageSelection(span), '--', out], dir, `Cutting pages ${span.from}-${span.to}`);
          parts.push(await readFile(out));
        }
        return parts;
      }),

    compress: (pdf, level: CompressLevel) =>
      inDir(async (dir) => {
        const input = await write(dir, 'in.pdf', pdf);
        await pageCountIn(dir, input, 'Reading the document');
        // Lossless first: repaired, object streams, streams recompressed. Ghostscript reads only this.
        const repacked = join(dir, 'repacked.pdf');
        await qpdfOn(
          ['--object-streams=generate', '--compress-streams=y', '--recompress-flate', '--compression-level=9', '--', input, repacked],
          dir,
          'Reading the document',
        );
        const gsOut = join(dir, 'gs.pdf');
        const ran = await run(gs, ghostscriptCompressArgs(level, repacked, gsOut), dir, 'Compressing the document');
        const candidates = [repacked];
        if (ran.code === 0) {
          // Ghostscript's output is checked (and repacked) by qpdf like any input.
          const checked = join(dir, 'gs-repacked.pdf');
          await qpdfOn(
            ['--object-streams=generate', '--compress-streams=y', '--', gsOut, checked],
            dir,
            'Checking the compressed document',
          );
          candidates.push(checked);
        }
        let best = candidates[0]!;
        for (const c of candidates) if ((await stat(c)).size < (await stat(best)).size) best = c;
        const bytes = await readFile(best);
        return bytes.byteLength < pdf.byteLength ? bytes : Buffer.from(pdf);
      }),

    updateMetadata: (pdf, metadata: PdfToolMetadata) =>
      inDir(async (dir) => {
        const input = await write(dir, 'in.pdf', pdf);
        await pageCountIn(dir, input, 'Reading the document');
        const normal = join(dir, 'normal.pdf');
        await qpdfOn(['--object-streams=disable', '--decrypt', '--', input, normal], dir, 'Reading the document');
        const lib = await pdfLib();
        let doc: PDFDocument;
        try {
          doc = await lib.PDFDocument.load(await readFile(normal), { updateMetadata: false, throwOnInvalidObject: false });
        } catch (err) {
          throw new PdfToolFailure('INPUT_INVALID', `The document's structure cannot be edited: ${(err as Error).message}`);
        }
        setInfo(lib, doc, metadata);
        const edited = await write(dir, 'edited.pdf', await doc.save({ useObjectStreams: false, updateFieldAppearances: false }));
        const out = join(dir, 'out.pdf');
        const version = metadata.pdfVersion !== undefined ? [`--force-version=${pdfVersionText(metadata.pdfVersion)}`] : [];
        await qpdfOn([...version, '--', edited, out], dir, 'Writing the document');
        return readFile(out);
      }),
  };
}

function setInfo({ PDFHexString, PDFName }: Awaited<ReturnType<typeof pdfLib>>, doc: PDFDocument, m: PdfToolMetadata): void {
  if (m.title !== undefined) doc.setTitle(m.title);
  if (m.author !== undefined) doc.setAuthor(m.author);
  if (m.subject !== undefined) doc.setSubject(m.subject);
  if (m.keywords !== undefined) doc.setKeywords(m.keywords);
  if (m.creator !== undefined) doc.setCreator(m.creator);
  if (m.producer !== undefined) doc.setProducer(m.producer);
  if (m.createDate !== undefined) doc.setCreationDate(new Date(m.createDate));
  if (m.modDate !== undefined) doc.setModificationDate(new Date(m.modDate));
  // pdf-lib keeps its info dictionary private; the setters above create it when missing.
  const info = (doc as unknown as { getInfoDict(): PDFDict }).getInfoDict();
  if (m.copyright !== undefined) info.set(PDFName.of('Copyright'), PDFHexString.fromText(m.copyright));
  if (m.trapped !== undefined) info.set(PDFName.of('Trapped'), PDFName.of(m.trapped));
  if (m.marked !== undefined) doc.catalog.set(PDFName.of('MarkInfo'), doc.context.obj({ Marked: m.marked }));
}

/** The first line of a program's complaint, without our temporary paths. */
function summary(stderr: string, dir: string): string {
  const line =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? 'no detail';
  return line
    .split(dir + '/')
    .join('')
    .slice(0, 300);
}
