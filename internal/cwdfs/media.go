package cwdfs

import (
	"path/filepath"
	"strings"
)

// MaxMedia bounds a previewed image, PDF, audio or video file; it is
// streamed (with ranges, for seeking), never read whole.
const MaxMedia = 1 << 30

// mediaTypes are the file types the files panel previews as themselves;
// everything else is text or octet-stream.
var mediaTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".svg": "image/svg+xml",
	".pdf": "application/pdf",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".oga": "audio/ogg", ".m4a": "audio/mp4",
	".flac": "audio/flac", ".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm", ".ogv": "video/ogg",
	".mov": "video/quicktime"}

// MediaType is the type the files panel previews the file name as itself
// (an image, a PDF, audio or video), by its extension; "" for any other.
func MediaType(name string) string { return mediaTypes[strings.ToLower(filepath.Ext(name))] }
