import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { FerryError } from '../errors/ferry-error.js';

const ATTR = '@_';
const TEXT = '#text';

/**
 * Read access to one element of a document parsed by fast-xml-parser, without `any`: the parser returns a tree of
 * strings (text-only or empty elements) and objects (attributes under `@_name`, text under `#text`, children by
 * tag, an array when a tag repeats).
 */
export class XmlElement {
  constructor(
    readonly name: string,
    private readonly node: unknown,
  ) {}

  /** The first child element called `name`. */
  child(name: string): XmlElement | undefined {
    return this.children(name)[0];
  }

  children(name: string): readonly XmlElement[] {
    if (!isRecord(this.node)) return [];
    const value = this.node[name];
    if (value === undefined) return [];
    return (Array.isArray(value) ? (value as unknown[]) : [value]).map((node) => new XmlElement(name, node));
  }

  /** Trimmed text content, `undefined` when the element has none. */
  text(): string | undefined {
    if (typeof this.node === 'string') return this.node === '' ? undefined : this.node;
    if (isRecord(this.node) && typeof this.node[TEXT] === 'string') return this.node[TEXT];
    return undefined;
  }

  attr(name: string): string | undefined {
    if (!isRecord(this.node)) return undefined;
    const value = this.node[ATTR + name];
    return typeof value === 'string' ? value : undefined;
  }
}

export interface XmlDocumentSpec {
  /** The only root element accepted. */
  readonly root: string;
  /** What the document is, for messages: `domain capabilities`. */
  readonly what: string;
  /** What to do when the root is another element. */
  readonly wrongRootHint: string;
  /** Tags that are lists even when they occur once, so one `<value>` reads like three. */
  readonly arrayTags: ReadonlySet<string>;
  /** Dotted paths (`domainCapabilities.cpu`) kept as raw text: well-formedness is checked, the tree is not built. */
  readonly skipPaths?: readonly string[];
}

const parsers = new WeakMap<XmlDocumentSpec, XMLParser>();

function parserFor(spec: XmlDocumentSpec): XMLParser {
  let parser = parsers.get(spec);
  if (parser === undefined) {
    const { arrayTags } = spec;
    parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: ATTR,
      parseTagValue: false,
      parseAttributeValue: false,
      ignoreDeclaration: true,
      ignorePiTags: true,
      isArray: (tagName) => arrayTags.has(tagName),
      stopNodes: [...(spec.skipPaths ?? [])],
    });
    parsers.set(spec, parser);
  }
  return parser;
}

/**
 * Check that `xml` is well-formed (fast-xml-parser's validator: it reports line and column), has exactly one root
 * element and that the root is `spec.root`; then parse it. Any failure is FERRY_INVALID_XML naming `source`.
 */
export function readXmlDocument(xml: string, source: string, spec: XmlDocumentSpec): XmlElement {
  if (xml.trim() === '') {
    throw invalidXml(`${source} is empty; expected ${spec.what} XML`, TRUNCATED_HINT, { source, line: 1 });
  }
  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) throw notWellFormed(xml, source, verdict.err);
  const parsed: unknown = parserFor(spec).parse(xml);
  const roots = isRecord(parsed) ? Object.entries(parsed) : [];
  const [first] = roots;
  // A repeated root tag parses as one key holding an array.
  const single = first !== undefined && Array.isArray(first[1]) ? (first[1] as unknown[]).length === 1 : true;
  if (roots.length !== 1 || first === undefined || !single) {
    const names = roots.map(([name, node]) => `<${name}>${Array.isArray(node) ? ` ×${(node as unknown[]).length}` : ''}`).join(', ');
    throw invalidXml(
      `${source} has ${roots.length === 0 ? 'no root element' : `more than one root element (${names})`}; ` +
        `${spec.what} XML has exactly one <${spec.root}>`,
      spec.wrongRootHint,
      { source, roots: roots.map(([name]) => name) },
    );
  }
  const rootName = first[0];
  const rootNode: unknown = Array.isArray(first[1]) ? (first[1] as unknown[])[0] : first[1];
  if (rootName !== spec.root) {
    throw invalidXml(
      `${source} is not ${spec.what}: its root element is <${rootName}>, expected <${spec.root}>`,
      spec.wrongRootHint,
      { source, root: rootName, expected: spec.root },
    );
  }
  return new XmlElement(rootName, rootNode);
}

const TRUNCATED_HINT =
  'Give the unmodified output of the virsh command; a file that ends early was usually cut short by an ' +
  'interrupted command or a full disk.';

function notWellFormed(xml: string, source: string, err: { code: string; msg: string; line: number }): FerryError {
  // Typed as always present, but the validator leaves it out for some errors ("Start tag expected").
  const col = (err as { col?: number }).col;
  // At the end of the input the validator lists the still-open tags as "Invalid '[\"a\", \"b\"]' found."
  // and points at line 1: say what that means and where the input ended instead.
  const open = /^Invalid '\[/.test(err.msg) ? [...err.msg.matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? '') : [];
  if (open.length > 0) {
    const lastLine = xml.trimEnd().split('\n').length;
    return invalidXml(
      `${source} is not well-formed XML: it ends at line ${lastLine} with <${open.join('> <')}> still open, so it looks truncated`,
      TRUNCATED_HINT,
      { source, line: lastLine, unclosed: open, validatorCode: err.code },
    );
  }
  const at = col === undefined ? `line ${err.line}` : `line ${err.line}, column ${col}`;
  return invalidXml(`${source} is not well-formed XML (${at}): ${err.msg}`, TRUNCATED_HINT, {
    source,
    line: err.line,
    column: col,
    validatorCode: err.code,
  });
}

function invalidXml(message: string, hint: string, details: Readonly<Record<string, unknown>>): FerryError {
  return new FerryError('FERRY_INVALID_XML', message, hint, details);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
