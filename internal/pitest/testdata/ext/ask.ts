// Test extension: /ask opens a confirm and then a select dialog and reports
// both answers in a notify, so a test can answer the dialogs (through the
// agent's worker or piweb's API) and see what reached pi.
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
