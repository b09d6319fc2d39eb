// Test oracle: pi's own `pi mcp add` of one server (addMcpServerConfig of
// pi's built-in MCP extension) to one mcp.json.
// argv: <pi package root> <mcp.json> <server name> <config as JSON>
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [root, path, name, config] = process.argv.slice(2);
const { addMcpServerConfig } = await import(pathToFileURL(join(root, "dist", "extensions", "mcp", "config.js")).href);
addMcpServerConfig(path, name, JSON.parse(config));
