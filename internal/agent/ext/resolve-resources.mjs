// piweb's view of what pi's `pi config` lists: pi's own package manager
// resolves the resources (extensions, skills, prompts, themes) of the
// agent dir and, when the project is trusted, of the project, each with
// whether it is enabled and where it comes from. Run by node with
// argv: <pi package root> <cwd> <agent dir> <"1" when trusted>.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [root, cwd, agentDir, trusted] = process.argv.slice(1);
const mod = (p) => import(pathToFileURL(join(root, "dist", p)).href);
const { DefaultPackageManager } = await mod("core/package-manager.js");
const { SettingsManager } = await mod("core/settings-manager.js");
// As pi's main passes them to `pi config` (isBuiltinExtension); a pi
// before the built-in extensions (0.73) has none.
const builtInExtensions = await mod("extensions/index.js").then((m) => m.builtInExtensions, () => []);
const builtinExtensions = builtInExtensions.filter((e) => typeof e !== "function" && e.builtin === true).map((e) => e.name);
const resolve = (projectTrusted) => {
	const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted });
	return new DefaultPackageManager({ cwd, agentDir, settingsManager, builtinExtensions }).resolve();
};
// pi config's globalResolvedPaths, then its projectResolvedPaths.
const global = await resolve(false);
const project = trusted === "1" ? await resolve(true) : null;
process.stdout.write(JSON.stringify({ global, project }));
