// A pi extension for piweb's browser tests: commands that open each kind
// of extension dialog, then report the answer with a notification and a
// status line, so the tests see the answer reach pi and come back.
export default function (pi: any) {
	const report = (ctx: any, text: string) => {
		ctx.ui.notify(text, "info");
		ctx.ui.setStatus("piweb-test", text);
	};
	pi.registerCommand("ask-colour", {
		description: "Pick a colour (select dialog)",
		handler: async (_args: string, ctx: any) => {
			const v = await ctx.ui.select("Pick a colour", ["red", "green", "blue"]);
			report(ctx, `colour: ${v ?? "none"}`);
		},
	});
	pi.registerCommand("ask-proceed", {
		description: "Confirm within the given milliseconds (confirm dialog)",
		handler: async (args: string, ctx: any) => {
			const ok = await ctx.ui.confirm("Proceed?", "Answer before it times out.", { timeout: Number(args) || 60000 });
			report(ctx, `proceed: ${ok}`);
		},
	});
	pi.registerCommand("ask-name", {
		description: "Type a name (input dialog)",
		handler: async (_args: string, ctx: any) => {
			const v = await ctx.ui.input("Your name", "a name");
			report(ctx, `name: ${v ?? "none"}`);
		},
	});
	pi.registerCommand("ask-text", {
		description: "Edit a text (editor dialog)",
		handler: async (_args: string, ctx: any) => {
			const v = await ctx.ui.editor("Edit the text", "line one\nline two");
			report(ctx, `text: ${v === undefined ? "none" : v.split("\n").length + " lines"}`);
		},
	});
}
