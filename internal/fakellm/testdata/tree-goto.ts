// Test-only pi extension: "/tree-goto <entryId> [summarize]" moves the
// session leaf in place (RPC mode has no command for it), which makes pi
// send a branch-summary request when "summarize" is given.
export default function (pi: any) {
	pi.registerCommand("tree-goto", {
		description: "Move the session leaf to an entry (piweb fakellm tests)",
		handler: async (args: string, ctx: any) => {
			const [id, mode] = args.trim().split(/\s+/);
			await ctx.navigateTree(id, { summarize: mode === "summarize" });
		},
	});
}
