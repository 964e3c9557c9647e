import { Stack } from './test/e2e/support/stack';
import { execSync } from 'node:child_process';
const stack = await Stack.start();
console.log(stack.root);
console.log(execSync('ps -eo pid,args | grep -i countersign | grep -v grep | cut -c1-250').toString());
await stack.close();
