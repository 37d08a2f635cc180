package report

// ReportDirEnv is reportDirEnv for the browser tests (package report_test): the results folder
// `make test` names.
const ReportDirEnv = reportDirEnv
