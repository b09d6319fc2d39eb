// Test oracle: toggles one resource with pi's own `pi config` component
// (ConfigSelectorComponent's ResourceList.toggleResource), as pressing
// space on it does, then waits for pi's settings write.
// argv: <pi package root> <cwd> <agent dir> <"global"|"project"> <type> <path> <"1" when trusted>
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [root, cwd, agentDir, writeScope, type, path, trusted] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(join(root, "dist", p)).href);
const { DefaultPackageManager } = await mod("core/package-manager.js");
const { SettingsManager } = await mod("core/settings-manager.js");
const { builtInExtensions } = await mod("extensions/index.js");
const { ConfigSelectorComponent } = await mod("modes/interactive/components/config-selector.js");
const { initTheme } = await mod("modes/interactive/theme/theme.js");
initTheme(undefined, false);
const builtinExtensions = builtInExtensions.filter((e) => typeof e !== "function" && e.builtin === true).map((e) => e.name);
const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: trusted === "1" });
const globalSM = SettingsManager.create(cwd, agentDir, { projectTrusted: false });
const global = await new DefaultPackageManager({ cwd, agentDir, settingsManager: globalSM, builtinExtensions }).resolve();
const project = trusted === "1" ? await new DefaultPackageManager({ cwd, agentDir, settingsManager, builtinExtensions }).resolve() : global;
const c = new ConfigSelectorComponent({ global, project }, settingsManager, cwd, agentDir, () => {}, () => {}, () => {}, 24, writeScope, trusted === "1");
const list = c.getResourceList();
const entry = list.filteredItems.find((e) => e.type === "item" && e.item.resourceType === type && e.item.path === path);
if (!entry) throw new Error(`no ${type} ${path} in pi config's list`);
list.selectedIndex = list.filteredItems.indexOf(entry);
list.handleInput(" ");
await settingsManager.flush();
process.stdout.write(JSON.stringify({ enabled: entry.item.enabled, state: list.getProjectOverrideState(entry.item) }));
process.exit(0);
