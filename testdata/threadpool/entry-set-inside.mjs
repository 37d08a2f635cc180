process.env.UV_THREADPOOL_SIZE = process.env.LAB_SET_POOL_SIZE; // the first line, as the docs warn against
// An ES-module entry that sets the pool size from inside the program, then loads the lab (by a
// dynamic import, so the line above runs before it; a static import would be hoisted above it)
// and runs it with its arguments. The Go test leaves UV_THREADPOOL_SIZE itself unset.
const { main, exit } = (await import('./lab.js')).default;
main(process.argv.slice(2)).then(() => process.exit(0), exit);
