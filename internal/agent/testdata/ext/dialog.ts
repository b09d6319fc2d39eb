// Test extension: /ask opens a confirm and a select dialog, then reports
// the answers with a notify, so tests can check what reached pi.
export default function (pi: any) {
	pi.registerCommand("ask", {
		description: "piweb test dialog",
		handler: async (_args: string, ctx: any) => {
			const ok = await ctx.ui.confirm("Proceed?", "Really proceed?");
			const pick = await ctx.ui.select("Pick a colour", ["red", "blue"]);
			ctx.ui.notify(`ok=${ok} pick=${pick}`, "info");
		},
	});
}
