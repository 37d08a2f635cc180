process.env.UV_THREADPOOL_SIZE = process.env.LAB_SET_POOL_SIZE; // the first line, as the docs warn against
// A CommonJS entry that sets the pool size from inside the program, then runs the lab with its
// arguments (the slot count). The Go test leaves UV_THREADPOOL_SIZE itself unset.
const { main, exit } = require('./lab.js');
main(process.argv.slice(2)).then(() => process.exit(0), exit);
