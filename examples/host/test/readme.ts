import { readFileSync } from 'node:fs';

/** The repository README's section under `## <title>`, up to the next `## ` heading. */
export function readmeSection(title: string): string {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "${title}"`);
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
}
