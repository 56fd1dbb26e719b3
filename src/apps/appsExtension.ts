/** The MCP Apps extension's names (SEP-1865), apart from the app so the stdio front reads them without it. */
export const appMimeType = "text/html;profile=mcp-app"
export const appsExtension = "io.modelcontextprotocol/ui"

/** What the server says in its capabilities (SEP-1724 extensions): it serves MCP Apps' HTML. */
export const appsServerExtension = { [appsExtension]: { mimeTypes: [appMimeType] } }
