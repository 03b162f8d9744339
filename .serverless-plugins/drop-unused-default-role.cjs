'use strict';
// The framework always creates a shared default role (IamRoleLambdaExecution, with logs
// access to every log group of the service). With a role per function it is used by
// nothing, so this removes it from the template unless some resource still refers to it.
class DropUnusedDefaultRole {
  constructor(serverless) {
    this.hooks = {
      'before:package:finalize': () => {
        const resources = serverless.service.provider.compiledCloudFormationTemplate.Resources;
        const { IamRoleLambdaExecution, ...rest } = resources;
        if (!IamRoleLambdaExecution) return;
        if (JSON.stringify(rest).includes('"IamRoleLambdaExecution"')) return;
        delete resources.IamRoleLambdaExecution;
      },
    };
  }
}
module.exports = DropUnusedDefaultRole;
