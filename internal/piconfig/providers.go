package piconfig

import "piweb/internal/apitype"

// Provider is a provider pi 1.6.0 has built in: its id, the environment
// variables pi reads its API key from, and whether pi offers an account
// sign-in for it (`pi auth login <id>`: the provider has pi-ai's
// auth.oauth; TestSignInProvidersArePis checks the list against pi)
// (apitype.Provider, where the API's shapes are defined).
type Provider = apitype.Provider

// Providers are pi 1.6.0's built-in providers (pi-ai's env-api-keys.js and
// auth/oauth, pi-coding-agent's defaultModelPerProvider), for the
// settings page: pi's RPC lists only the models of configured providers.
var Providers = []Provider{
	{ID: "anthropic", Env: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN"}, SignIn: true},
	{ID: "openai", Env: []string{"OPENAI_API_KEY"}, SignIn: true},
	{ID: "openai-codex", SignIn: true},
	{ID: "google", Env: []string{"GEMINI_API_KEY"}},
	{ID: "google-vertex", Env: []string{"GOOGLE_CLOUD_API_KEY"}, Ambient: true},
	{ID: "amazon-bedrock", Ambient: true},
	{ID: "azure", Env: []string{"AZURE_OPENAI_API_KEY"}},
	{ID: "github-copilot", Env: []string{"COPILOT_GITHUB_TOKEN"}, SignIn: true},
	{ID: "openrouter", Env: []string{"OPENROUTER_API_KEY"}, SignIn: true},
	{ID: "xai", Env: []string{"XAI_API_KEY"}, SignIn: true},
	{ID: "deepseek", Env: []string{"DEEPSEEK_API_KEY"}},
	{ID: "mistral", Env: []string{"MISTRAL_API_KEY"}},
	{ID: "groq", Env: []string{"GROQ_API_KEY"}},
	{ID: "cerebras", Env: []string{"CEREBRAS_API_KEY"}},
	{ID: "vercel-ai-gateway", Env: []string{"AI_GATEWAY_API_KEY"}},
	{ID: "zai", Env: []string{"ZAI_API_KEY"}},
	{ID: "zai-coding-cn", Env: []string{"ZAI_CODING_CN_API_KEY"}},
	{ID: "minimax", Env: []string{"MINIMAX_API_KEY"}},
	{ID: "minimax-cn", Env: []string{"MINIMAX_CN_API_KEY"}},
	{ID: "moonshotai", Env: []string{"MOONSHOT_API_KEY"}},
	{ID: "moonshotai-cn", Env: []string{"MOONSHOT_API_KEY"}},
	{ID: "kimi-coding", Env: []string{"KIMI_API_KEY"}, SignIn: true},
	{ID: "huggingface", Env: []string{"HF_TOKEN"}},
	{ID: "fireworks", Env: []string{"FIREWORKS_API_KEY"}},
	{ID: "together", Env: []string{"TOGETHER_API_KEY"}},
	{ID: "baseten", Env: []string{"BASETEN_API_KEY"}},
	{ID: "nvidia", Env: []string{"NVIDIA_API_KEY"}},
	{ID: "opencode", Env: []string{"OPENCODE_API_KEY"}},
	{ID: "opencode-go", Env: []string{"OPENCODE_API_KEY"}},
	{ID: "meta", Env: []string{"META_API_KEY"}, SignIn: true},
	{ID: "radius", Env: []string{"RADIUS_API_KEY"}, SignIn: true},
	{ID: "cloudflare-workers-ai", Env: []string{"CLOUDFLARE_API_KEY"}},
	{ID: "cloudflare-ai-gateway", Env: []string{"CLOUDFLARE_API_KEY"}},
	{ID: "xiaomi", Env: []string{"XIAOMI_API_KEY"}},
	{ID: "ant-ling", Env: []string{"ANT_LING_API_KEY"}},
	{ID: "qwen-token-plan", Env: []string{"QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"}},
}
