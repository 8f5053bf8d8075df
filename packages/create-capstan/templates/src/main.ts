#!/usr/bin/env node
/** The program: flags → manager → controller → run until SIGTERM, which drains and exits 0. */
import { exitOnError, Manager, managerOptionsFromFlags, runManager } from '@capstan/runtime';
import { parseWidgetArgs } from './flags.js';
import { addWidget } from './operator.js';

const { standard } = parseWidgetArgs(process.argv.slice(2));
// A kubeconfig that is missing or wrong: one line saying so (exit code 2), not a stack trace.
const managerOptions = exitOnError(() => managerOptionsFromFlags(standard));
// Events this program records say it sent them (events.k8s.io reportingController).
const manager = Manager.create({ ...managerOptions, eventSource: 'example.com/__NAME__' });
addWidget(manager);
await runManager(manager);
