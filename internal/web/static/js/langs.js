// Language definitions for highlight.js: per language, regular expression
// rules (tried as one alternation, first match wins) and word lists that
// classify identifiers. Rules are sources, not RegExp objects, so that the
// engine can join them; a rule may be a function name handled by the engine
// (markup tags, Markdown fences).
//
// Classes: c comment, s string, n number or literal, k keyword, t type,
// f function, p property or key, v variable, a meta (annotation, decorator,
// preprocessor, macro, anchor), h heading.

const words = (s) => new Set(s.split(/\s+/).filter(Boolean));

// Common pieces. A lookbehind is tried at every position of the input, so
// none may scan back an unbounded run (of spaces, say): their repeats are
// bounded.
const LINE = '(?<=^|\\n)'; // at the start of a line
// A string that is not closed ends at the end of its line (or of the
// input), as editors show it: were it no match, the scan would retry it
// from every later quote, and a line of escaped quotes ("\"\"…) would cost
// the square of its length.
const DQ = '"(?:[^"\\\\\\n]|\\\\[\\s\\S])*(?:"|\\\\?$|(?=\\n))';
const SQ = "'(?:[^'\\\\\\n]|\\\\[\\s\\S])*(?:'|\\\\?$|(?=\\n))";
const BLOCK = '\\/\\*[\\s\\S]*?(?:\\*\\/|$)';
const SLASH = '\\/\\/[^\\n]*';
const HASH = '#[^\\n]*';
const NUM = '\\b(?:0[xX][\\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|' +
  '\\d[\\d_]*(?:\\.\\d[\\d_]*)?(?:[eE][+-]?\\d+)?)(?:[a-zA-Z]\\w*)?\\b|(?<![\\w.])\\.\\d+\\b';

const JS_KW = 'async await break case catch class const continue debugger default delete do else export extends ' +
  'finally for from function get if import in instanceof let new of return set static super switch throw try ' +
  'typeof var void while with yield as satisfies implements interface type enum declare namespace abstract private ' +
  'public protected readonly keyof infer is override module';
const C_KW = 'auto break case catch class const constexpr continue default delete do else enum explicit export ' +
  'extern final for friend goto if inline mutable namespace new noexcept operator override private protected ' +
  'public register return sizeof static static_assert struct switch template this throw try typedef typename union ' +
  'using virtual volatile while import package extends implements throws instanceof interface abstract ' +
  'synchronized transient native strictfp assert fun val var when object companion data sealed lateinit internal ' +
  'open suspend in is as by init get set where func let guard defer fileprivate protocol extension inout some any ' +
  'self Self async await yield base checked fixed foreach lock out params ref sealed unchecked unsafe';
const C_TYPES = 'void char short int long float double signed unsigned bool boolean byte size_t ssize_t int8_t ' +
  'int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t uintptr_t wchar_t String Int Long Double Float ' +
  'Boolean Unit Any Nothing string object decimal uint ulong ushort sbyte dynamic var';

export const LANGS = {
  js: {
    rules: [['c', SLASH + '|' + BLOCK], ['s', DQ + '|' + SQ + '|`(?:[^`\\\\]|\\\\[\\s\\S])*`?'], ['a',
      '@[A-Za-z_$][\\w$.]*'], ['n', NUM]],
    keywords: words(JS_KW), literals: words('true false null undefined NaN Infinity this'),
    types: words('string number boolean any unknown never object symbol bigint void'), capTypes: true,
  },
  go: {
    rules: [['c', SLASH + '|' + BLOCK], ['s', DQ + '|`[^`]*`?|' + SQ], ['n', NUM]],
    keywords: words('break case chan const continue default defer else fallthrough for func go goto if import ' +
      'interface map package range return select struct switch type var'),
    literals: words('true false nil iota'),
    types: words('any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 ' +
      'rune string uint uint8 uint16 uint32 uint64 uintptr'),
  },
  rust: {
    rules: [['c', SLASH + '|' + BLOCK], ['a', '#!?\\[[^\\]\\n]*\\]'], ['s',
      'b?r(?<hashes>#*)"[\\s\\S]*?(?:"\\k<hashes>|$)|b?' + DQ + "|b?'(?:[^'\\\\\\n]|\\\\[^\\n]{1,10})'"], ['a',
      "'[A-Za-z_]\\w*\\b(?!')"], ['n', NUM]],
    keywords: words('as async await break const continue crate dyn else enum extern fn for if impl in let loop ' +
      'match mod move mut pub ref return static struct super trait type unsafe use where while macro_rules'),
    literals: words('true false self Self Some None Ok Err'),
    types: words('i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str'), capTypes: true,
      macros: true,
  },
  c: {
    rules: [['c', SLASH + '|' + BLOCK], ['a', LINE + '[ \\t]*#[ \\t]*\\w+|@[A-Za-z_]\\w*'], ['s',
      '@?' + DQ + '|' + SQ + '|"""[\\s\\S]*?(?:"""|$)'], ['n', NUM]],
    keywords: words(C_KW), literals: words('true false null nullptr NULL this nil'), types: words(C_TYPES),
      capTypes: true,
  },
  py: {
    rules: [['c', HASH], ['s', '(?:\\b[rRbBuUfF]{1,2})?(?:"""[\\s\\S]*?(?:"""|$)|\'\'\'[\\s\\S]*?(?:\'\'\'|$)|' + DQ
      + '|' + SQ + ')'], ['a', LINE + '[ \\t]*@[\\w.]+'], ['n', NUM]],
    keywords: words('and as assert async await break class continue def del elif else except finally for from ' +
      'global if import in is lambda nonlocal not or pass raise return try while with yield match case'),
    literals: words('True False None self cls'),
    types: words('int float str bool bytes list dict set tuple object type complex frozenset bytearray'),
      capTypes: true,
  },
  sh: {
    rules: [['c', '(?<![\\w$#{])#[^\\n]*'], ['s', '"(?:[^"\\\\]|\\\\[\\s\\S])*(?:"|\\\\?$)|\'[^\']*(?:\'|$)|' +
      '\\$\'(?:[^\'\\\\]|\\\\[\\s\\S])*(?:\'|\\\\?$)'], ['v', '\\$(?:\\{[^}\\n]{0,100}\\}|[A-Za-z_]\\w*|[@*#?$!0-9-])'],
      ['a', '(?<=\\s)--?[A-Za-z][\\w-]*'], ['n', '\\b\\d+\\b']],
    keywords: words('if then else elif fi for while until do done case esac in function select time return local ' +
      'export declare readonly set unset shift trap break continue exit source'),
    literals: words('true false'),
    builtins: words('echo printf cd pwd ls cat grep rg sed awk find xargs sort uniq head tail wc cut tr tee mkdir ' +
      'rm cp mv ln chmod chown touch test read eval exec git go npm npx node pnpm yarn python python3 pip make ' +
      'curl wget tar docker kill sudo which env'),
    ident: '[A-Za-z_][\\w.-]*', wordChars: '\\w.$-',
  },
  json: {
    rules: [['c', SLASH + '|' + BLOCK], ['p', DQ + '(?=\\s*:)'], ['s', DQ], ['n', NUM]],
    keywords: words(''), literals: words('true false null'),
  },
  yaml: {
    rules: [['c', '(?<=^|\\s)#[^\\n]*'], ['a', LINE + '(?:---|\\.\\.\\.)(?=\\s|$)|[&*][\\w-]+|!!?[\\w/-]*'],
      ['p', '(?<=(?:^|\\n)[ \\t]{0,64}(?:-[ \\t]{1,4}){0,8})(?:' + DQ + '|' + SQ + '|[^\\s#\'"\\-?:,\\[\\]{}&*!|' +
        '>%@`][^\\n#]*?)(?=[ \\t]{0,16}:(?:[ \\t]|\\n|$))'],
      ['s', DQ + "|'(?:[^']|'')*(?:'|$)"], ['n', '(?<=[\\s:\\[,-])-?(?:\\d[\\d_.]*(?:[eE][+-]?\\d+)?|\\.inf|' +
        '\\.nan)(?=\\s*(?:$|\\n|[,\\]}#]))']],
    keywords: words(''), literals: words('true false null yes no on off True False Null'),
  },
  toml: {
    rules: [['c', '#[^\\n]*'], ['k', LINE + '[ \\t]*\\[\\[?[^\\]\\n]*\\]\\]?'], ['p',
      LINE + '[ \\t]*[\\w.\\-"\']+(?=[ \\t]*=)'],
      ['s', '"""[\\s\\S]*?(?:"""|$)|\'\'\'[\\s\\S]*?(?:\'\'\'|$)|' + DQ + "|'[^'\\n]*'"], ['n',
        '\\d{4}-\\d\\d-\\d\\d(?:[T ][\\d:.]+(?:Z|[+-]\\d\\d:\\d\\d)?)?|[+-]?' + NUM]],
    keywords: words(''), literals: words('true false inf nan'),
  },
  css: {
    rules: [['c', BLOCK], ['s', DQ + '|' + SQ], ['k', '@[\\w-]+|!important'], ['p',
      '(?<=[{;]\\s{0,64})[\\w-]+(?=\\s*:)|--[\\w-]+'],
      ['n', '#[\\da-fA-F]{3,8}\\b|-?(?:\\d+\\.?\\d*|\\.\\d+)(?:%|[a-zA-Z]+\\b)?'], ['t',
        '[.#][A-Za-z_-][\\w-]*(?=[^;{}]{0,100}\\{)']],
    keywords: words(''), literals: words(''), ident: '[A-Za-z_-][\\w-]*', wordChars: '\\w-',
  },
  sql: {
    rules: [['c', '--[^\\n]*|' + BLOCK], ['s', "'(?:[^']|'')*(?:'|$)|" + DQ], ['n', NUM]],
    keywords: words('select from where and or not insert into values update set delete create table index view ' +
      'join left right inner outer full cross on group by order having limit offset as is in like between exists ' +
      'case when then else end primary key foreign references unique default distinct union all with returning ' +
      'begin commit rollback transaction alter drop add column if replace pragma virtual using asc desc conflict ' +
      'do nothing'),
    literals: words('null true false'), types: words('integer int text real blob numeric varchar char boolean date ' +
      'timestamp bigint serial'), nocase: true,
  },
  html: { markup: true },
  md: {
    rules: [['fence', LINE + '[ \\t]*(?<fence>`{3,}|~{3,})[^\\n]*(?:\\n[\\s\\S]*?(?:\\n[ \\t]*\\k<fence>[ ' +
      '\\t]*(?=\\n|$)|$))?'],
      ['h', LINE + '#{1,6}[ \\t][^\\n]*'], ['c', LINE + '[ \\t]*>[^\\n]*|<!--[\\s\\S]*?(?:-->|$)'], ['s',
        '`[^`\\n]{1,200}`'],
      ['k', '\\*\\*[^*\\n]{1,200}\\*\\*|__[^_\\n]{1,200}__'], ['f', '!?\\[[^\\]\\n]{0,100}\\]\\([^)\\n]{0,300}\\)|' +
        '<https?:[^>\\s]{1,300}>'], ['n', LINE + '[ \\t]*(?:[-*+]|\\d+[.)])(?=[ \\t])']],
    keywords: words(''), literals: words(''), noWords: true,
  },
};

export const ALIASES = {
  javascript: 'js', jsx: 'js', ts: 'js', typescript: 'js', tsx: 'js', mjs: 'js', cjs: 'js', mts: 'js', cts: 'js',
    node: 'js',
  golang: 'go', rs: 'rust', python: 'py', py3: 'py', pyi: 'py',
  cpp: 'c', 'c++': 'c', cc: 'c', cxx: 'c', h: 'c', hpp: 'c', hh: 'c', java: 'c', cs: 'c', csharp: 'c', kotlin: 'c',
    kt: 'c', kts: 'c',
  swift: 'c', zig: 'c', dart: 'c', scala: 'c', 'objective-c': 'c', objc: 'c', m: 'c', groovy: 'c', gradle: 'c',
    proto: 'c',
  bash: 'sh', shell: 'sh', zsh: 'sh', fish: 'sh', console: 'sh', 'shell-session': 'sh', shellscript: 'sh', ksh: 'sh',
    env: 'sh', dockerfile: 'sh', makefile: 'sh', mk: 'sh',
  jsonl: 'json', jsonc: 'json', json5: 'json', geojson: 'json', ndjson: 'json',
  yml: 'yaml', ini: 'toml', cfg: 'toml', conf: 'toml', properties: 'toml', editorconfig: 'toml',
  scss: 'css', less: 'css', sass: 'css', pcss: 'css',
  xml: 'html', svg: 'html', vue: 'html', svelte: 'html', xhtml: 'html', htm: 'html', plist: 'html',
  markdown: 'md', mdx: 'md', mkd: 'md',
  patch: 'diff', udiff: 'diff',
  sqlite: 'sql', psql: 'sql', mysql: 'sql', postgres: 'sql', postgresql: 'sql',
};
