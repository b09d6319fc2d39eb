// Test extension: /timed asks a confirm that pi itself cancels after the
// given milliseconds, then reports the answer with a notify.
export default function (pi: any) {
	pi.registerCommand("timed", {
		description: "piweb test timed dialog",
		handler: async (args: string, ctx: any) => {
			const ok = await ctx.ui.confirm("Quick?", "Answer fast.", { timeout: Number(args) });
			ctx.ui.notify(`timed ok=${ok}`, "info");
		},
	});
}
