// Test oracle: pi's own /mcp enable or disable of one server
// (updateMcpServerConfig of pi's built-in MCP extension) in one mcp.json.
// argv: <pi package root> <mcp.json> <server name> <"true"|"false"> [<"override">]
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [root, path, name, enabled, override] = process.argv.slice(2);
const { updateMcpServerConfig } = await import(pathToFileURL(join(root, "dist", "extensions", "mcp", "config.js")).href);
updateMcpServerConfig(path, name, { enabled: enabled === "true" }, { override: override === "override" });
