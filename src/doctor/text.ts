// The path doctor's explanation as numbered steps, for a terminal or a <pre>.
import type { Explanation } from './explanation.js';

export function explanationText(e: Explanation): string {
  const out: string[] = [];
  const m = e.mapping.match;
  out.push(`Path: ${e.input}`);
  out.push('');
  out.push(`1. SERVER_PATH_MAPPINGS (${e.mapping.configured} form(s) configured)`);
  out.push(m ? `   matched ${m.rule !== undefined ? `rule '${m.rule}' ` : ''}'${m.from}' -> '${m.to}'\n   result: ${e.mapping.result}` : `   no mapping matched; the path is used as is: ${e.mapping.result}`);
  out.push(`2. SERVER_IGNORE_LIST [${e.ignore.list.map((s) => `'${s}'`).join(', ')}]`);
  out.push(e.ignore.matchedBy !== null ? `   IGNORED: the path contains '${e.ignore.matchedBy}'` : '   not ignored');
  if (e.verdict !== 'ignored') {
    const f = e.fileExist;
    out.push(`3. File check (SERVER_FILE_EXIST_PATH_MAPPINGS${f.match ? ` '${f.match.from}' -> '${f.match.to}'` : ': none matched'})`);
    out.push(`   ${f.path}: ${f.state === 'missing' ? 'does not exist here' : `exists (${f.state})`}${f.checked ? '' : ' (SERVER_MAX_FILE_CHECKS is 0: not waited for)'}`);
    out.push(`4. Folder to scan: ${e.folder} (the path is a ${e.kind}); priority ${e.priority}`);
    out.push(`5. Targets`);
    if (e.targets.length === 0) out.push('   none configured');
    for (const t of e.targets) {
      out.push(`   ${t.name} (${t.kind}): ${t.path}${t.rewrite ? ` (rewritten ${t.rewrite.rule !== undefined ? `by rule '${t.rewrite.rule}' ` : ''}'${t.rewrite.from}' -> '${t.rewrite.to}')` : ''}`);
      if (t.excluded) out.push(`     ${t.excluded}`);
      if (t.error) out.push(`     ${t.error}`);
      if (t.matches?.length) for (const l of t.matches) out.push(`     in library ${l.title}: ${l.locations.join(', ')}`);
      if (t.scan) out.push(`     ${t.scan}`);
      else if (t.verdict === 'scan' && t.matches?.length === 0) out.push('     takes any folder (it has no library list)');
      else if (t.matches?.length === 0) out.push(`     no library holds it; libraries: ${t.known.map((l) => `${l.title}: ${l.locations.join(', ')}`).join('; ') || 'none'}`);
    }
  }
  out.push('');
  out.push(`Result: ${e.summary}`);
  if (e.candidates.length) {
    out.push('Closest known prefixes:');
    for (const c of e.candidates) out.push(`  ${c.prefix}  (${c.where}, ${c.distance} edit(s) away)`);
  }
  if (e.suggestion) {
    out.push(`Suggested mapping: add ${e.suggestion.entry} to the SERVER_PATH_MAPPINGS in config.json, keeping every entry there (a second SERVER_PATH_MAPPINGS key would replace the first). The key then reads:`);
    out.push(e.suggestion.merged.replace(/^/gm, '  '));
  }
  return out.join('\n') + '\n';
}
